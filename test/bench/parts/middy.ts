// middy's core, which loads node:stream, node:stream/promises, node:stream/web and node:timers.
import middy from '@middy/core';

export const handler = middy(async () => 'ok');
