// @middy/core (7: standard mode only; the streaming mode and its node:stream imports are a module apart).
import middy from '@middy/core';

export const handler = middy(async () => 'ok');
