import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { newAccount, saveRecord, walkList } from '../support/resources';
import type { Account } from '../support/resources';

let api: LocalApi;

// Long-lived tokens, so the clock can move across days without signing in again.
beforeAll(async () => {
  api = await startLocalApi({ TOKEN_TTL_MS: String(400 * 86_400_000) });
});
afterAll(() => api?.close());

const usage = async (account: Account, query = '') => {
  const response = await api.request('GET', `/api/transcriptions/usage${query}`, { token: account.token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
};

/** Each test starts at its own fixed moment, far from a UTC midnight unless it wants one. */
async function accountAt(moment: string): Promise<Account> {
  api.clock.set(new Date(moment));
  return newAccount(api, 'usage');
}

describe('GET /api/transcriptions/usage', () => {
  it('is zero with no days for an account without records', async () => {
    const account = await accountAt('2031-01-15T12:00:00Z');
    expect(await usage(account)).toEqual({ userId: account.userId, totalUsage: 0, dailyUsage: [] });
  });

  it('sums durationSeconds per UTC day of creation, newest day first, and over the lifetime', async () => {
    const account = await accountAt('2031-02-01T08:00:00Z');
    await saveRecord(api, account, { durationSeconds: 60 });
    await saveRecord(api, account, { durationSeconds: 30 });
    api.clock.set(new Date('2031-02-02T09:00:00Z'));
    await saveRecord(api, account, { durationSeconds: 120 });
    api.clock.set(new Date('2031-02-04T10:00:00Z'));
    await saveRecord(api, account, { durationSeconds: 15 });
    expect(await usage(account)).toEqual({
      userId: account.userId,
      totalUsage: 225,
      dailyUsage: [
        { date: '2031-02-04', usage: 15 },
        { date: '2031-02-02', usage: 120 },
        { date: '2031-02-01', usage: 90 },
      ],
    });
  });

  it('takes ?days= as the number of days up to today; the total stays lifetime', async () => {
    const account = await accountAt('2031-03-01T08:00:00Z');
    await saveRecord(api, account, { durationSeconds: 100 });
    api.clock.set(new Date('2031-03-03T08:00:00Z'));
    await saveRecord(api, account, { durationSeconds: 7 });
    expect(await usage(account, '?days=1')).toMatchObject({ totalUsage: 107, dailyUsage: [{ date: '2031-03-03', usage: 7 }] });
    expect(await usage(account, '?days=2')).toMatchObject({ totalUsage: 107, dailyUsage: [{ date: '2031-03-03', usage: 7 }] });
    expect((await usage(account, '?days=3')).dailyUsage).toEqual([
      { date: '2031-03-03', usage: 7 },
      { date: '2031-03-01', usage: 100 },
    ]);
  });

  it('covers the last 30 days by default and up to 366 on request', async () => {
    const account = await accountAt('2031-04-01T08:00:00Z');
    await saveRecord(api, account, { durationSeconds: 50 });
    api.clock.set(new Date('2031-05-01T08:00:00Z'));
    await saveRecord(api, account, { durationSeconds: 5 });
    // 2031-04-01 is the 31st day counting back from 2031-05-01.
    expect((await usage(account)).dailyUsage).toEqual([{ date: '2031-05-01', usage: 5 }]);
    expect((await usage(account, '?days=31')).dailyUsage).toHaveLength(2);
    expect((await usage(account, '?days=366')).dailyUsage).toHaveLength(2);
  });

  it('puts records on either side of a UTC midnight on their own dates', async () => {
    const account = await accountAt('2031-06-01T23:59:59Z');
    await saveRecord(api, account, { durationSeconds: 11 });
    api.clock.set(new Date('2031-06-02T00:00:00Z'));
    await saveRecord(api, account, { durationSeconds: 22 });
    expect((await usage(account)).dailyUsage).toEqual([
      { date: '2031-06-02', usage: 22 },
      { date: '2031-06-01', usage: 11 },
    ]);
  });

  it.each(['0', '367', 'abc', '1.5', '-3', ''])('refuses ?days=%s with 400', async (days) => {
    const account = await accountAt('2031-07-01T08:00:00Z');
    const response = await api.request('GET', `/api/transcriptions/usage?days=${days}`, { token: account.token });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED' });
  });

  it('follows an edited duration on the day the record was created', async () => {
    const account = await accountAt('2031-08-01T08:00:00Z');
    const record = await saveRecord(api, account, { durationSeconds: 60 });
    api.clock.set(new Date('2031-08-03T08:00:00Z'));
    const edited = await api.request('PATCH', `/api/transcriptions/${record.transcriptionRecordId}`, {
      token: account.token,
      body: { durationSeconds: 100 },
    });
    expect(edited.status).toBe(200);
    expect(await usage(account)).toMatchObject({ totalUsage: 100, dailyUsage: [{ date: '2031-08-01', usage: 100 }] });
  });

  it('drops a deleted record’s duration, and a day left without usage disappears', async () => {
    const account = await accountAt('2031-09-01T08:00:00Z');
    const first = await saveRecord(api, account, { durationSeconds: 40 });
    api.clock.set(new Date('2031-09-02T08:00:00Z'));
    await saveRecord(api, account, { durationSeconds: 2 });
    expect((await api.request('DELETE', `/api/transcriptions/${first.transcriptionRecordId}`, { token: account.token })).status).toBe(200);
    expect(await usage(account)).toMatchObject({ totalUsage: 2, dailyUsage: [{ date: '2031-09-02', usage: 2 }] });
  });
});

describe('usage under concurrency', () => {
  it('is exact after 50 concurrent saves by one account, and all 50 records are listed', async () => {
    const account = await accountAt('2031-10-01T08:00:00Z');
    const durations = Array.from({ length: 50 }, (_, index) => index * 7 + 1);
    const saved = await Promise.all(durations.map((durationSeconds) => saveRecord(api, account, { durationSeconds })));
    const total = durations.reduce((sum, value) => sum + value, 0);
    expect(await usage(account)).toMatchObject({ totalUsage: total, dailyUsage: [{ date: '2031-10-01', usage: total }] });
    const listed = (await walkList(api, '/api/transcriptions', account, 100)).flatMap((page) => page.body);
    expect(listed).toHaveLength(50);
    expect(new Set(listed.map((record: any) => record.transcriptionRecordId))).toEqual(new Set(saved.map((record) => record.transcriptionRecordId)));
  });

  it('matches the surviving records after concurrent edits and deletes', async () => {
    const account = await accountAt('2031-11-01T08:00:00Z');
    const records = await Promise.all(Array.from({ length: 10 }, () => saveRecord(api, account, { durationSeconds: 10 })));
    const target = records[0]!.transcriptionRecordId;
    const requests = [
      ...Array.from({ length: 8 }, (_, index) =>
        api.request('PATCH', `/api/transcriptions/${target}`, { token: account.token, body: { durationSeconds: 100 + index } }),
      ),
      ...records.slice(5).map((record) => api.request('DELETE', `/api/transcriptions/${record.transcriptionRecordId}`, { token: account.token })),
      ...records.slice(1, 5).map((record) =>
        api.request('PATCH', `/api/transcriptions/${record.transcriptionRecordId}`, { token: account.token, body: { durationSeconds: 1 } }),
      ),
    ];
    for (const response of await Promise.all(requests)) expect(response.status, JSON.stringify(response.body)).toBe(200);
    const remaining = (await walkList(api, '/api/transcriptions', account, 100)).flatMap((page) => page.body);
    expect(remaining).toHaveLength(5);
    const expected = remaining.reduce((sum: number, record: any) => sum + record.durationSeconds, 0);
    expect(expected).toBeGreaterThanOrEqual(104);
    expect(await usage(account)).toMatchObject({ totalUsage: expected, dailyUsage: [{ date: '2031-11-01', usage: expected }] });
  });
});
