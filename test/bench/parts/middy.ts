// @middy/core with its imports of node:stream, node:stream/web, node:stream/promises and node:timers.
import middy from '@middy/core';

export const handler = middy(async () => 'ok');
