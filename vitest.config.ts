import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // DynamoDB Local starts once per run; each test file gets its own table and local server.
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores here: scrypt at OWASP parameters and DynamoDB Local both want CPU.
    maxWorkers: 2,
    // This machine runs Node 20; Lambda runs 22+. The SDK's reminder about that is noise here.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
