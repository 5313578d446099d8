import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirst } from './test/support/sequencer';

/**
 * Integration files that run in a process of their own: the deployed-bundles suite imports another
 * file's tests (which a shared process would have loaded already, registering none) and serves
 * the bundles to every server of its process.
 */
const ISOLATED = ['test/integration/openapi-conformance-deployed.test.ts'];

/**
 * The unit files that replace modules, globals, the environment or timers (vi.mock, vi.spyOn ...):
 * each runs in a process of its own, so that nothing it replaced reaches another file. Read from
 * the files themselves, so a new one is placed by what it does.
 */
const ROOT = dirname(fileURLToPath(import.meta.url));
const REPLACING_UNIT_FILES = readdirSync(join(ROOT, 'test/unit'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/unit/${file}`)
  .filter((file) => /\bvi\.(?:mock|doMock|unmock|spyOn|stubGlobal|stubEnv|useFakeTimers)\(/.test(readFileSync(join(ROOT, file), 'utf8')));

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores here: scrypt, esbuild, the CDK and DynamoDB Local all want CPU.
    maxWorkers: 2,
    // The longest files start first, so that the run does not end on one of them alone (test/support/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    // This machine runs Node 20; Lambda runs 22+. The SDK's reminder about that is noise here.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      {
        extends: true,
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          // One process for the CDK files (no isolation between them): aws-cdk-lib is loaded once, and
          // a context several files synthesize (dev, prod) is synthesized once (synthesizeOnce of
          // test/infra/synth.ts). They need no DynamoDB Local.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/client/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ISOLATED],
          // One process per worker for the files of the local server and the app client (no isolation
          // between them): the server, the SDK and the handlers are loaded once, ~1 s of CPU a file. Each file still
          // starts its own server on its own table; DynamoDB Local starts once per run.
          isolate: false,
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...REPLACING_UNIT_FILES],
          // One process per worker for the unit files that replace nothing (~0.3 s of CPU a file).
          isolate: false,
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'isolated-unit', include: REPLACING_UNIT_FILES, globalSetup: ['test/support/global-setup.ts'] },
      },
      {
        extends: true,
        test: { name: 'isolated-integration', include: [...ISOLATED], globalSetup: ['test/support/global-setup.ts'] },
      },
    ],
  },
});
