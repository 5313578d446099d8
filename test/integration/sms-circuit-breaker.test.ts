import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys';
import type { Database } from '../../shared/db/client';
import { SMS_BUDGET_SHARDS, shardCaps, takeSmsFromBudget, utcHour } from '../../shared/db/sms-budget-repository';
import { startLocalApi, uniqueEmail, uniquePhone } from '../support/local-api';
import type { LocalApi } from '../support/local-api';

/**
 * Issue 19: SMS_MAX_PER_HOUR bounds SMS codes for the whole deployment. Past it an SMS send
 * answers 429 with Retry-After until the next hour and leaves nothing behind; e-mail keeps working.
 */
const LIMIT = 12;
let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi({ SMS_MAX_PER_HOUR: String(LIMIT) });
  // Mid-hour, so that the whole test runs in one hour of the service clock.
  const now = new Date();
  api.clock.set(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), now.getUTCHours(), 20)));
});
afterAll(() => api?.close());

const sms = (target = uniquePhone()) => api.request('POST', '/api/verify-code/send', { body: { type: 'sms', target } });

async function shardCounts(hour: string): Promise<number[]> {
  const counts: number[] = [];
  for (let shard = 0; shard < SMS_BUDGET_SHARDS; shard++) {
    const item = (await api.db.client.send(new GetCommand({ TableName: api.db.tableName, Key: keys.smsHourShard(hour, shard), ConsistentRead: true }))).Item;
    counts.push(Number(item?.sent ?? 0));
  }
  return counts;
}

describe('SMS circuit breaker', () => {
  it('splits the limit exactly over the shards', () => {
    for (const limit of [1, 3, 10, 12, 25, 500, 1001]) {
      const caps = shardCaps(limit);
      expect(caps.reduce((sum, cap) => sum + cap, 0), String(limit)).toBe(limit);
      expect(Math.max(...caps) - Math.min(...caps)).toBeLessThanOrEqual(1);
      expect(caps.length).toBeLessThanOrEqual(SMS_BUDGET_SHARDS);
    }
  });

  it('sends exactly the hourly limit of SMS under a concurrent burst, then answers 429 until the next hour; e-mail goes on', async () => {
    const hour = utcHour(api.clock.now());
    const answers = await Promise.all(Array.from({ length: LIMIT + 8 }, () => sms()));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(LIMIT);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(refused).toHaveLength(8);
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(answer.body).toMatchObject({ code: 429, error: 'SMS_LIMIT_REACHED' });
      const wait = Number(answer.headers.get('retry-after'));
      // 40 minutes to the next hour, give or take the test's own time.
      expect(wait).toBeGreaterThan(30 * 60);
      expect(wait).toBeLessThanOrEqual(40 * 60);
      expect(answer.body.retryAfterSeconds).toBe(wait);
    }
    // Counted on several shard items, never past any shard's cap, in all exactly the limit.
    const counts = await shardCounts(hour);
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(LIMIT);
    expect(counts.filter((count) => count > 0).length).toBeGreaterThan(1);
    counts.forEach((count, shard) => expect(count).toBeLessThanOrEqual(shardCaps(LIMIT)[shard] ?? 0));

    // A refused target holds no code and no cooldown: it may ask again as soon as SMS resume.
    const target = uniquePhone();
    expect((await sms(target)).status).toBe(429);
    expect(api.outbox.list(target)).toEqual([]);
    expect((await api.request('POST', '/api/verify-code/send', { body: { type: 'email', target: uniqueEmail('breaker') } })).status).toBe(200);

    api.clock.advance(3600);
    expect((await sms(target)).status).toBe(200);
    expect(api.outbox.list(target)).toHaveLength(1);
  });

  it('refuses a spent hour without another write, once this container has found it spent', async () => {
    let requests = 0;
    const counted = { tableName: api.db.tableName, client: { send: (command: never) => (requests++, api.db.client.send(command)) } } as unknown as Database;
    // An hour of its own, long past, so that no other test's sends share its shard items.
    const now = new Date(Date.UTC(2001, 0, 1) + Math.floor(Math.random() * 100_000) * 3_600_000);
    const limit = 3;
    for (let sent = 0; sent < limit; sent++) expect(await takeSmsFromBudget(counted, now, limit)).toBe(true);
    requests = 0;
    expect(await takeSmsFromBudget(counted, now, limit)).toBe(false);
    expect(requests).toBe(shardCaps(limit).length);
    requests = 0;
    expect(await takeSmsFromBudget(counted, now, limit)).toBe(false);
    expect(requests).toBe(0);
    // The next hour has a budget again.
    expect(await takeSmsFromBudget(counted, new Date(now.getTime() + 3_600_000), limit)).toBe(true);
  });
});
