import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { newAccount, sampleRecord, walkList } from '../support/resources';
import type { Account } from '../support/resources';

let api: LocalApi;

// Long-lived tokens, so the clock can pass the 24-hour window without signing in again.
beforeAll(async () => {
  api = await startLocalApi({ TOKEN_TTL_MS: String(30 * 86_400_000) });
});
afterAll(() => api?.close());

const post = (account: Account, path: string, body: unknown, key?: string) =>
  api.request('POST', path, { token: account.token, body, headers: key === undefined ? {} : { 'Idempotency-Key': key } });
const records = async (account: Account) => (await walkList(api, '/api/transcriptions', account, 100)).flatMap((page) => page.body);
const usage = async (account: Account) => (await api.request('GET', '/api/transcriptions/usage', { token: account.token })).body;
const stats = async (account: Account) => (await api.request('GET', '/api/behavior/stats', { token: account.token })).body;

describe('Idempotency-Key on POST /api/transcriptions', () => {
  it('answers a repeat with the first response and saves the record once', async () => {
    const account = await newAccount(api);
    const key = randomUUID();
    const first = await post(account, '/api/transcriptions', sampleRecord({ durationSeconds: 42 }), key);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    api.clock.advance(3600);
    const repeat = await post(account, '/api/transcriptions', sampleRecord({ durationSeconds: 42 }), key);
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual(first.body);
    expect(JSON.stringify(repeat.body)).toBe(JSON.stringify(first.body));
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(await records(account)).toEqual([first.body]);
    expect((await usage(account)).totalUsage).toBe(42);
  });

  it('replays the first response even after the record was edited', async () => {
    const account = await newAccount(api);
    const key = randomUUID();
    const first = await post(account, '/api/transcriptions', sampleRecord(), key);
    await api.request('PATCH', `/api/transcriptions/${first.body.transcriptionRecordId}`, { token: account.token, body: { recordTitle: 'Edited' } });
    const repeat = await post(account, '/api/transcriptions', sampleRecord(), key);
    expect(repeat.body).toEqual(first.body);
  });

  it('saves once when the same request is sent 10 times at once', async () => {
    const account = await newAccount(api);
    const key = randomUUID();
    const responses = await Promise.all(Array.from({ length: 10 }, () => post(account, '/api/transcriptions', sampleRecord({ durationSeconds: 5 }), key)));
    for (const response of responses) {
      expect(response.status).toBe(200);
      expect(response.body).toEqual(responses[0]!.body);
    }
    expect(await records(account)).toHaveLength(1);
    expect((await usage(account)).totalUsage).toBe(5);
  });

  it('refuses the key with 422 for a different request and saves nothing more', async () => {
    const account = await newAccount(api);
    const key = randomUUID();
    await post(account, '/api/transcriptions', sampleRecord(), key);
    const other = await post(account, '/api/transcriptions', sampleRecord({ recordTitle: 'Another' }), key);
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ code: 422, error: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await records(account)).toHaveLength(1);
  });

  it('saves again after 24 hours, although the expired key record is still stored', async () => {
    const account = await newAccount(api);
    const key = randomUUID();
    const first = await post(account, '/api/transcriptions', sampleRecord(), key);
    // Margins of a few seconds: real time also passes between requests, and times are whole seconds.
    api.clock.advance(24 * 3600 - 5);
    expect((await post(account, '/api/transcriptions', sampleRecord(), key)).body).toEqual(first.body);
    api.clock.advance(10);
    const stored = await api.db.client.send(
      new GetCommand({ TableName: api.db.tableName, Key: keys.idempotency(account.userId, 'transcriptions', key) }),
    );
    expect(stored.Item).toBeDefined();
    const later = await post(account, '/api/transcriptions', sampleRecord(), key);
    expect(later.status).toBe(200);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.transcriptionRecordId).not.toBe(first.body.transcriptionRecordId);
    expect(await records(account)).toHaveLength(2);
    // The key now holds the new response for the next 24 hours.
    expect((await post(account, '/api/transcriptions', sampleRecord(), key)).body).toEqual(later.body);
  });

  it('does not spend the key on a request that failed validation', async () => {
    const account = await newAccount(api);
    const key = randomUUID();
    expect((await post(account, '/api/transcriptions', sampleRecord({ durationSeconds: -1 }), key)).status).toBe(400);
    const valid = await post(account, '/api/transcriptions', sampleRecord(), key);
    expect(valid.status).toBe(200);
    expect(valid.headers.get('idempotent-replayed')).toBeNull();
  });

  it('keeps keys apart per account: the same key from another account saves its own record', async () => {
    const [one, two] = await Promise.all([newAccount(api), newAccount(api)]);
    const key = randomUUID();
    const first = await post(one, '/api/transcriptions', sampleRecord(), key);
    const second = await post(two, '/api/transcriptions', sampleRecord(), key);
    expect(second.status).toBe(200);
    expect(second.body.userId).toBe(two.userId);
    expect(second.body.transcriptionRecordId).not.toBe(first.body.transcriptionRecordId);
  });

  it('stores and replays a 100 000-character emoji record', async () => {
    const account = await newAccount(api);
    const key = randomUUID();
    const body = sampleRecord({ text: '😀'.repeat(100_000), recordTitle: '😀'.repeat(200) });
    const first = await post(account, '/api/transcriptions', body, key);
    expect(first.status).toBe(200);
    const repeat = await post(account, '/api/transcriptions', body, key);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.body.text === first.body.text).toBe(true);
  });

  it.each([
    ['an empty key', ''],
    ['a key of 256 characters', 'k'.repeat(256)],
    ['a key with a space', 'two words'],
    ['a key with a tab', 'tab\there'],
  ])('refuses %s with 400 and saves nothing', async (_label, key) => {
    const account = await newAccount(api);
    const response = await post(account, '/api/transcriptions', sampleRecord(), key);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED' });
    expect(await records(account)).toEqual([]);
  });

  it('accepts a key of 255 visible characters', async () => {
    const account = await newAccount(api);
    const key = '!'.repeat(100) + '~'.repeat(155);
    const first = await post(account, '/api/transcriptions', sampleRecord(), key);
    expect(first.status).toBe(200);
    expect((await post(account, '/api/transcriptions', sampleRecord(), key)).body).toEqual(first.body);
  });
});

describe('Idempotency-Key on the behavior POSTs', () => {
  it('records an event once for repeats with the same key', async () => {
    const account = await newAccount(api);
    const key = randomUUID();
    const body = { eventType: 'voice_provider', eventValue: 'azure' };
    const responses = [await post(account, '/api/behavior/events', body, key), await post(account, '/api/behavior/events', body, key)];
    for (const response of responses) expect(response.body).toEqual({ code: 0, message: expect.any(String) });
    expect(responses[1]!.headers.get('idempotent-replayed')).toBe('true');
    expect((await stats(account)).events).toEqual([{ eventType: 'voice_provider', count: 1, lastValue: 'azure' }]);
  });

  it('records a login once for repeats with the same key', async () => {
    const account = await newAccount(api);
    const key = randomUUID();
    for (let index = 0; index < 3; index++) expect((await post(account, '/api/behavior/login', { location: 'Home' }, key)).status).toBe(200);
    expect((await stats(account)).loginCount).toBe(1);
    expect((await api.request('GET', '/api/behavior/login', { token: account.token })).body).toHaveLength(1);
  });

  it('keeps keys apart per operation', async () => {
    const account = await newAccount(api);
    const key = randomUUID();
    expect((await post(account, '/api/behavior/login', { location: 'Home' }, key)).status).toBe(200);
    expect((await post(account, '/api/behavior/events', { eventType: 'subtitle_layout', eventValue: 'top' }, key)).status).toBe(200);
    expect((await post(account, '/api/transcriptions', sampleRecord(), key)).status).toBe(200);
    expect(await stats(account)).toEqual({ loginCount: 1, events: [{ eventType: 'subtitle_layout', count: 1, lastValue: 'top' }] });
    expect(await records(account)).toHaveLength(1);
  });

  it('records every request without a key', async () => {
    const account = await newAccount(api);
    for (let index = 0; index < 2; index++) await post(account, '/api/behavior/login', { location: 'Home' });
    expect((await stats(account)).loginCount).toBe(2);
  });
});
