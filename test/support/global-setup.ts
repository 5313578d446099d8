import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../infra/local/dynamodb-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

/** The environment variable naming the DynamoDB Local of an outer run. */
export const OUTER_DYNAMODB_ENDPOINT = 'TEST_OUTER_DYNAMODB_ENDPOINT';

type Shared = { dynamo: ReturnType<typeof startDynamoDbLocal>; users: number };
const run = globalThis as typeof globalThis & { __testDynamoDbLocal?: Shared };

/**
 * The JVM's quick compiler only: a test run sends DynamoDB Local many small, different requests
 * for a few minutes, where the optimizing compiler's threads cost more CPU than their code wins
 * back (29 integration files: 55 -> 41 s of CPU, the same wall time; docs/contributing.md).
 * `npm start` and `npm run bench` keep the JVM's defaults.
 */
const TEST_JVM = ['-XX:TieredStopAtLevel=1'];

/**
 * One DynamoDB Local for the whole run, on a free port, in memory: the projects of
 * vitest.config.ts that need it each run this setup, in the one process of the run, and share it.
 */
export default async function setup(project: TestProject) {
  // This process runs Node 20 (Lambda runs 22+); the SDK's reminder about that is noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // A run inside a run (vitest in a copy of the project: runInCopy of ./project-copy.ts) uses the
  // outer run's DynamoDB Local rather than starting a JVM of its own: each file has its own table.
  const outer = process.env[OUTER_DYNAMODB_ENDPOINT];
  if (outer) {
    project.provide('dynamoEndpoint', outer);
    return;
  }
  const shared = (run.__testDynamoDbLocal ??= { dynamo: startDynamoDbLocal({ javaOptions: TEST_JVM }), users: 0 });
  shared.users++;
  project.provide('dynamoEndpoint', (await shared.dynamo).endpoint);
  return async () => {
    if (--shared.users > 0) return;
    run.__testDynamoDbLocal = undefined;
    await (await shared.dynamo).stop();
  };
}
