/**
 * Replaces `node:stream/web` in Lambda bundles (an esbuild alias, see infra/bundling/options.ts).
 * @middy/core imports its `ReadableStream` at the top for response streaming, which this service
 * does not use (it only tests `body instanceof ReadableStream` there). Loading Node's web-streams
 * implementation costs ~1.7 ms of every cold start, measured after the DynamoDB client is loaded
 * (README "Benchmarks"). This stand-in answers `instanceof` and `new` with the real class, which
 * Node loads only when one of them is first used. test/unit/bundles.test.ts checks that nothing but
 * @middy/core imports it.
 */
export class ReadableStream {
  constructor(...args: ConstructorParameters<typeof globalThis.ReadableStream>) {
    // A constructor that returns an object makes `new` give that object: the real stream.
    return new globalThis.ReadableStream(...args);
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof globalThis.ReadableStream;
  }
}
