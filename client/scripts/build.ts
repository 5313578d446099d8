import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { BuildOptions } from 'esbuild';

/**
 * `npm run build -w client`: the package as published, dist/index.js (ESM, openapi-fetch left to
 * the app's bundler as a dependency) and dist/*.d.ts. test/client/package.test.ts bundles the same
 * entry with openapi-fetch inside, minified, for the size budget; the browser test loads that.
 */
const CLIENT_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CLIENT_ENTRY = join(CLIENT_ROOT, 'src', 'index.ts');

/** One file for the browser or an app: everything inside, minified. */
export const standaloneBundle: BuildOptions = {
  entryPoints: [CLIENT_ENTRY],
  bundle: true,
  minify: true,
  format: 'esm',
  // Neither Node nor a browser: a Node built-in anywhere in the client fails the build.
  platform: 'neutral',
  target: 'es2022',
  write: false,
  legalComments: 'none',
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dist = join(CLIENT_ROOT, 'dist');
  rmSync(dist, { recursive: true, force: true });
  await build({ ...standaloneBundle, minify: false, write: true, external: ['openapi-fetch'], outfile: join(dist, 'index.js') });
  execFileSync('npx', ['tsc', '-p', join(CLIENT_ROOT, 'tsconfig.json'), '--noEmit', 'false', '--emitDeclarationOnly', '--outDir', dist], { stdio: 'inherit' });
  console.log(`wrote ${dist}`);
}
