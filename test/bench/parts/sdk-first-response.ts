// What the AWS SDK's stream collector touches on the first response of a DynamoDB client: the
// global ReadableStream, which Node loads on first access. The floor pays it on its first call
// too; importing node:stream/web at init loaded this part early, along with the rest.
export const firstUse = () => typeof ReadableStream;
