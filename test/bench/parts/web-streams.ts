// Node's web streams loaded at import, as @middy/core's `import ... from 'node:stream/web'` did
// before the bundles aliased it to infra/bundling/lazy-web-streams.ts (the module is fetched by
// name here, so the alias does not replace it).
export const streams = process.getBuiltinModule('node:stream/web');
