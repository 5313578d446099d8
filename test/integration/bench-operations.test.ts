import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TYPICAL_ACCOUNT, readOperations, seedAccount } from '../bench/fixtures';
import type { SeededAccount } from '../bench/fixtures';
import { startBench } from '../bench/harness';
import type { Bench } from '../bench/harness';
import { pairOperation } from '../bench/overhead';
import { pairRefresh } from '../bench/refresh';
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

  // The overhead and throughput parts time each read next to its DynamoDB commands replayed on a
  // bare client: pairing runs both sides as the bench does (warm-up, recording, replays), so a
  // command the replay cannot repeat (a write conditioned on a new key) fails here too.
  it.each(readOperations().operations.map((operation) => [operation.id, operation] as const))('overhead pairs %s with its bare replay', async (_id, operation) => {
    const paired = await pairOperation(bench, operation, account);
    expect(paired.commands.length).toBeGreaterThan(0);
    expect(await paired.handler()).toBeGreaterThan(0);
    expect(await paired.bare()).toBeGreaterThan(0);
  });

  it('overhead pairs refresh with its bare replay', async () => {
    const paired = await pairRefresh(bench, 1);
    expect(await paired.handler()).toBeGreaterThan(0);
    expect(await paired.bare()).toBeGreaterThan(0);
  });
});
