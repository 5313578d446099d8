import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirst } from './test/support/sequencer';

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
          name: 'service',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/infra/**'],
          // DynamoDB Local starts once per run; each test file gets its own table and local server.
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
    ],
  },
});
