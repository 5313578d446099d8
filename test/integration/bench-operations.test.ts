import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TYPICAL_ACCOUNT, seedAccount } from '../bench/fixtures';
import type { SeededAccount } from '../bench/fixtures';
import { startBench } from '../bench/harness';
import type { Bench } from '../bench/harness';
import { timedOperations } from '../bench/timed-operations';

/**
 * `npm run bench` stops at the first request that does not answer as it must (a timed 400 measures
 * nothing). Every request it times (test/bench/timed-operations.ts, from the same lists its parts
 * time, the route table's reads among them) runs once here, through the real handler against
 * DynamoDB Local, for the typical account the bench seeds: a route the bench cannot call fails this
 * test instead of the next benchmark run.
 */
let bench: Bench;
let account: SeededAccount;

beforeAll(async () => {
  bench = await startBench({ dynamo: { endpoint: inject('dynamoEndpoint'), stop: async () => undefined } });
  account = await seedAccount(bench, 'typical', TYPICAL_ACCOUNT);
});

afterAll(async () => {
  await bench?.close();
});

const operations = timedOperations();

describe('every operation npm run bench times answers as the bench needs', () => {
  it('covers every GET route that reads the table, the admin reads among them', () => {
    const overhead = operations.filter((operation) => operation.part === 'overhead').map((operation) => operation.id);
    expect(overhead).toEqual(expect.arrayContaining(['GET /api/users/me', 'GET /admin/users', 'GET /admin/audit']));
  });

  it.each(operations.map((operation) => [`${operation.part}: ${operation.id}`, operation] as const))('%s', async (_name, operation) => {
    const spec = await operation.request(bench, account);
    const answer = await bench.invoke(operation.id, spec);
    const detail = `${operation.id} answered ${answer.statusCode}: ${answer.body}`;
    if (operation.accepts === '2xx') {
      expect(answer.statusCode, detail).toBeGreaterThanOrEqual(200);
      expect(answer.statusCode, detail).toBeLessThan(300);
    } else expect(answer.statusCode, detail).toBe(200);
  });
});
