import type { MiddlewareStack } from '@smithy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { newAccount } from '../support/resources';
import type { Account } from '../support/resources';

/**
 * Usage and statistics are read from aggregates, so reading them costs the same whatever the
 * number of records and events. The local server runs in this process and its handlers use the
 * very DynamoDB client of the server's context (`api.context.db`); a middleware on that client counts every
 * request the handlers send, the items each one read and the capacity DynamoDB charged for it.
 */
let api: LocalApi;
let small: Account;
let large: Account;

interface Cost {
  requests: string[];
  itemsRead: number;
  capacityUnits: number;
}
let current: Cost | undefined;

const EVENT_TYPES = [
  ['voice_provider', (index: number) => `provider-${index % 7}`],
  ['translation_on', (index: number) => (index % 2 ? 'true' : 'false')],
  ['language_choice', () => 'zh-CN'],
] as const;

async function populate(account: Account, count: number): Promise<number> {
  let total = 0;
  const jobs: (() => Promise<unknown>)[] = [];
  for (let index = 0; index < count; index++) {
    const durationSeconds = (index % 90) + 1;
    total += durationSeconds;
    jobs.push(() => api.request('POST', '/api/transcriptions', {
      token: account.token,
      body: { recordTitle: `R${index}`, text: 'hello', language: 'en-US', durationSeconds },
    }));
    const [eventType, value] = EVENT_TYPES[index % EVENT_TYPES.length]!;
    jobs.push(() =>
      index % 4 === 0
        ? api.request('POST', '/api/behavior/login', { token: account.token, body: { location: 'Home' } })
        : api.request('POST', '/api/behavior/events', { token: account.token, body: { eventType, eventValue: value(index) } }),
    );
  }
  // A few requests at a time: DynamoDB Local runs transactions one after the other anyway.
  const workers = Array.from({ length: 4 }, async () => {
    for (let job = jobs.shift(); job; job = jobs.shift()) {
      const response = (await job()) as { status: number; body: unknown };
      expect(response.status, JSON.stringify(response.body)).toBe(200);
    }
  });
  await Promise.all(workers);
  return total;
}

let largeTotal = 0;

beforeAll(async () => {
  api = await startLocalApi();
  const stack = api.context.db.client.middlewareStack as unknown as MiddlewareStack<any, any>;
  stack.add(
    (next, context) => async (args) => {
      const cost = current;
      const input = cost ? { ...args.input, ReturnConsumedCapacity: 'TOTAL' } : args.input;
      const result = await next({ ...args, input });
      if (cost) {
        const output = result.output as { Items?: unknown[]; Item?: unknown; ScannedCount?: number; ConsumedCapacity?: { CapacityUnits?: number } };
        cost.requests.push(String(context.commandName));
        cost.itemsRead += output.ScannedCount ?? output.Items?.length ?? (output.Item ? 1 : 0);
        cost.capacityUnits += output.ConsumedCapacity?.CapacityUnits ?? 0;
      }
      return result;
    },
    { step: 'initialize', name: 'readCostCounter' },
  );
  [small, large] = await Promise.all([newAccount(api, 'small'), newAccount(api, 'large')]);
  await populate(small, 10);
  largeTotal = await populate(large, 1000);
}, 600_000);
afterAll(() => api?.close());

async function measure(account: Account, path: string) {
  // The first request fills the authorizer cache; the measured one runs the handler alone.
  expect((await api.request('GET', path, { token: account.token })).status).toBe(200);
  current = { requests: [], itemsRead: 0, capacityUnits: 0 };
  const response = await api.request('GET', path, { token: account.token });
  const cost = current;
  current = undefined;
  expect(response.status).toBe(200);
  return { body: response.body, cost };
}

/** The same DynamoDB requests, items read and capacity: the read does not grow with the account. */
function expectSameCost(many: Cost, few: Cost) {
  expect(many.requests.length).toBeGreaterThan(0);
  expect(many.requests.sort()).toEqual(few.requests.sort());
  expect(many.itemsRead).toBe(few.itemsRead);
  expect(many.capacityUnits).toBe(few.capacityUnits);
}

describe('read cost', () => {
  it('of usage is the same for 10 and for 1 000 records', async () => {
    const few = await measure(small, '/api/transcriptions/usage');
    const many = await measure(large, '/api/transcriptions/usage');
    expect(many.body.totalUsage).toBe(largeTotal);
    expectSameCost(many.cost, few.cost);
  });

  it('of statistics is the same for 10 and for 1 000 events', async () => {
    const few = await measure(small, '/api/behavior/stats');
    const many = await measure(large, '/api/behavior/stats');
    expect(many.body.loginCount).toBe(250);
    expect(many.body.events.reduce((sum: number, entry: any) => sum + entry.count, 0)).toBe(750);
    expectSameCost(many.cost, few.cost);
  });

  it('is counted: a list read grows with the records it returns', async () => {
    const few = await measure(small, '/api/transcriptions?limit=100');
    const many = await measure(large, '/api/transcriptions?limit=100');
    expect(few.body).toHaveLength(10);
    expect(many.body).toHaveLength(100);
    expect(many.cost.itemsRead).toBeGreaterThan(few.cost.itemsRead + 80);
  });
});
