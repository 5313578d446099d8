import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * How every Lambda function is bundled, shared by the CDK stack and the benchmarks so that what
 * is measured is what is deployed. ESM, minified, for Node.js 22, the AWS SDK inside the bundle.
 */
const here = dirname(fileURLToPath(import.meta.url));

export const LAMBDA_NODE_TARGET = 'node22';

/**
 * The Node.js major version the functions run on in Lambda (`RUNTIME` of
 * infra/constructs/service-function.ts; a test holds the two together). `npm run bench:lambda-node`
 * measures with it, since cold imports differ between Node versions.
 */
export const LAMBDA_NODE_MAJOR = 24;

/** esbuild options beyond entry, output and format. */
export const lambdaEsbuildOptions = {
  bundle: true,
  platform: 'node',
  target: LAMBDA_NODE_TARGET,
  format: 'esm',
  minify: true,
  sourcemap: false,
  // ESM builds of the SDK tree-shake; the CommonJS ones (esbuild's default pick) do not.
  mainFields: ['module', 'main'],
  alias: {
    '@aws-sdk/credential-provider-node': join(here, 'lambda-credentials.ts'),
  },
  // Some CommonJS dependencies call require(); ESM output needs it defined.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
} as const;

/**
 * The esbuild conditions of a function: one for each adapter its route table entry does not need,
 * under which package.json's `#adapters/...` imports (shared/adapters/route-adapters.ts) resolve to
 * nothing, so a function that sends no codes bundles no SES or SNS client. The stack and the
 * benchmarks both bundle with these.
 */
export function routeConditions(needs: { table: string; secret: boolean; sender: boolean; speech?: boolean }): string[] {
  return [
    // esbuild adds `module` to the conditions only when none are given; without it packages'
    // ESM builds, which tree-shake (see mainFields), would give way to CommonJS ones (+165 KB).
    'module',
    ...(needs.table === 'none' ? ['route-without-table'] : []),
    ...(needs.secret || needs.speech ? [] : ['route-without-secret']),
    ...(needs.sender ? [] : ['route-without-sender']),
    ...(needs.speech ? [] : ['route-without-speech']),
  ];
}

/**
 * A function's own route table entry as an esbuild `define` of `BUNDLED_ROUTE`
 * (shared/http/endpoint.ts): the handler's wrapper takes its entry from there, so the route table,
 * which every function imports for its types and helpers, is tree-shaken out of each bundle
 * (6.9 KB of every function, measured with `npm run bench`'s bundle build). The stack and the
 * benchmarks both bundle with it.
 */
/**
 * Which speech settings a route's bundle carries (`BUNDLED_SPEECH`, shared/bundle-defines.d.ts):
 * the providers' addresses where it issues credentials (`speech`), the limits where the quota is
 * read (the speech routes, the summary, support's view of an account), none elsewhere.
 */
export function speechSettingsOf(route: { path?: string; speech?: boolean }): 'issuer' | 'quota' | 'none' {
  if (route.speech === true) return 'issuer';
  const path = route.path ?? '';
  return path.startsWith('/api/speech/') || path === '/api/users/me/summary' || path.startsWith('/admin/users') ? 'quota' : 'none';
}

export function routeDefine(route: { path?: string; providers?: boolean; speech?: boolean }): Record<string, string> {
  // A string, which esbuild inlines where it is read (an object define becomes a module of its own
  // that every module of the bundle imports).
  return {
    BUNDLED_ROUTE: JSON.stringify(JSON.stringify(route)),
    BUNDLED_PROVIDERS: String(route.providers === true),
    BUNDLED_SPEECH: JSON.stringify(speechSettingsOf(route)),
    // The silent push's settings are the fan-out's alone (shared/config.ts).
    BUNDLED_PUSH: 'false',
  };
}

/**
 * The authorizer's defines: it talks to no provider (`BUNDLED_PROVIDERS`, shared/bundle-defines.d.ts),
 * so the providers' settings, keys and secrets port are folded out of its bundle: issue 38 leaves
 * the authorizer unchanged. The stack and the benchmarks both bundle it with these.
 */
export const authorizerDefine: Record<string, string> = { BUNDLED_PROVIDERS: 'false', BUNDLED_SPEECH: JSON.stringify('none'), BUNDLED_AUTHORIZER: 'true', BUNDLED_PUSH: 'false' };
