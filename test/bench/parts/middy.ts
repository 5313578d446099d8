// @middy/core with its imports of node:stream, node:stream/promises and node:timers; in the
// bundles, its node:stream/web is the lazy stand-in of infra/bundling/lazy-web-streams.ts.
import middy from '@middy/core';

export const handler = middy(async () => 'ok');
