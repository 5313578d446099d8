import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi, signIn, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { sampleRecord } from '../support/resources';

/**
 * (Each test sets the clock before it signs in: a token issued after the clock's "now" would be
 * refused as issued in the future.)
 *
 * Usage by the person's own calendar day (issue 14): `dailyUsage[].date` is the date of each
 * record's `startedAt` in the account's time zone, `?days=` counts back from today there, and
 * edits and deletes move usage on the day it was counted. The clock is set to the moments that
 * matter: just after a local midnight that UTC has not reached, or has long passed.
 */
let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api?.close());
afterEach(() => api.clock.reset());

async function personIn(timeZone: string | null) {
  const session = await signIn(api, uniqueEmail('zone'));
  if (timeZone !== null) {
    const patched = await api.request('PATCH', '/api/users/me', { token: session.token, body: { timeZone } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.timeZone).toBe(timeZone);
  }
  return session.token;
}

async function save(token: string, durationSeconds: number, startedAt?: string) {
  const response = await api.request('POST', '/api/transcriptions', { token, body: sampleRecord({ durationSeconds, ...(startedAt ? { startedAt } : {}) }) });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as { transcriptionRecordId: number; startedAt: string; createdAt: string };
}

async function daily(token: string, days = 7) {
  const response = await api.request('GET', `/api/transcriptions/usage?days=${days}`, { token });
  expect(response.status).toBe(200);
  return response.body.dailyUsage as { date: string; usage: number }[];
}

describe('usage by the local calendar day', () => {
  const cases: { zone: string; now: string; today: string; lastEvening: string; yesterday: string }[] = [
    // 04:00 in Beijing on 10 March is still 9 March in UTC.
    { zone: 'Asia/Shanghai', now: '2026-03-09T20:00:00Z', today: '2026-03-10', lastEvening: '2026-03-09T12:30:00Z', yesterday: '2026-03-09' },
    // +5:30: 00:30 on 10 March; 23:30 the evening before.
    { zone: 'Asia/Kolkata', now: '2026-03-09T19:00:00Z', today: '2026-03-10', lastEvening: '2026-03-09T18:00:00Z', yesterday: '2026-03-09' },
    // +5:45: 00:05 on 10 March; 23:55 the evening before.
    { zone: 'Asia/Kathmandu', now: '2026-03-09T18:20:00Z', today: '2026-03-10', lastEvening: '2026-03-09T18:10:00Z', yesterday: '2026-03-09' },
    // -3:30 in winter: 23:30 on 14 January is already 15 January in UTC.
    { zone: 'America/St_Johns', now: '2026-01-15T03:00:00Z', today: '2026-01-14', lastEvening: '2026-01-14T02:00:00Z', yesterday: '2026-01-13' },
    // -2:30 in summer: 00:10 on 15 July; 23:50 the evening before.
    { zone: 'America/St_Johns', now: '2026-07-15T02:40:00Z', today: '2026-07-15', lastEvening: '2026-07-15T02:20:00Z', yesterday: '2026-07-14' },
  ];

  for (const { zone, now, today, lastEvening, yesterday } of cases) {
    it(`counts in ${zone} at ${now}: today is ${today}, a record begun at ${lastEvening} on ${yesterday}`, async () => {
      api.clock.set(new Date(now));
      const token = await personIn(zone);
      const current = await save(token, 600);
      // Captured offline last evening, synced now.
      const offline = await save(token, 120, lastEvening);
      expect(offline.startedAt).toBe(lastEvening);
      expect(current.startedAt).toBe(current.createdAt);
      expect(await daily(token)).toEqual([
        { date: today, usage: 600 },
        { date: yesterday, usage: 120 },
      ]);
      // ?days=1 is today in the zone only.
      expect(await daily(token, 1)).toEqual([{ date: today, usage: 600 }]);
    });
  }

  it('counts in UTC while no zone is set', async () => {
    api.clock.set(new Date('2026-03-09T20:00:00Z'));
    const token = await personIn(null);
    await save(token, 60);
    expect(await daily(token, 1)).toEqual([{ date: '2026-03-09', usage: 60 }]);
  });

  it('follows New York across the start of daylight-saving time', async () => {
    // Spring forward on 8 March 2026 at 02:00: 23:30 EST (-5) on the 7th, then 23:30 EDT (-4) on the 8th.
    api.clock.set(new Date('2026-03-09T03:30:00Z'));
    const token = await personIn('America/New_York');
    await save(token, 300, '2026-03-08T04:30:00Z');
    await save(token, 200, '2026-03-08T06:59:00Z'); // 01:59 EST on the 8th
    await save(token, 100);
    expect(await daily(token, 2)).toEqual([
      { date: '2026-03-08', usage: 300 },
      { date: '2026-03-07', usage: 300 },
    ]);
  });

  it('follows New York across the end of daylight-saving time', async () => {
    // Fall back on 1 November 2026 at 02:00: 00:30 EDT and 23:30 EST on the 1st.
    api.clock.set(new Date('2026-11-02T04:30:00Z'));
    const token = await personIn('America/New_York');
    await save(token, 40, '2026-11-01T04:30:00Z');
    await save(token, 2, '2026-11-02T04:29:00Z');
    expect(await daily(token, 1)).toEqual([{ date: '2026-11-01', usage: 42 }]);
  });

  it('keeps counted days where they fell when the zone changes, and moves edits and deletes on the day counted', async () => {
    api.clock.set(new Date('2026-03-09T20:00:00Z'));
    const token = await personIn('Asia/Shanghai');
    const record = await save(token, 600); // 10 March in Shanghai, 9 March in UTC
    const patched = await api.request('PATCH', '/api/users/me', { token, body: { timeZone: null } });
    expect(patched.body.timeZone).toBeNull();
    // Counted on 10 March; in UTC "today" is the 9th, so the 10th is not in today's window.
    expect(await daily(token, 2)).toEqual([]);
    api.clock.set(new Date('2026-03-10T12:00:00Z'));
    expect(await daily(token, 2)).toEqual([{ date: '2026-03-10', usage: 600 }]);
    // An edit of the duration changes the day it was counted on.
    const edited = await api.request('PATCH', `/api/transcriptions/${record.transcriptionRecordId}`, { token, body: { durationSeconds: 900 } });
    expect(edited.status).toBe(200);
    expect(await daily(token, 2)).toEqual([{ date: '2026-03-10', usage: 900 }]);
    // Moving its start moves its usage to that start's day in today's zone (UTC now).
    const moved = await api.request('PATCH', `/api/transcriptions/${record.transcriptionRecordId}`, { token, body: { startedAt: '2026-03-09T23:00:00Z' } });
    expect(moved.body.startedAt).toBe('2026-03-09T23:00:00Z');
    expect(await daily(token, 2)).toEqual([{ date: '2026-03-09', usage: 900 }]);
    const usage = await api.request('GET', '/api/transcriptions/usage?days=2', { token });
    expect(usage.body.totalUsage).toBe(900);
    // A delete takes it off that day, and off the total.
    expect((await api.request('DELETE', `/api/transcriptions/${record.transcriptionRecordId}`, { token })).status).toBe(200);
    const after = await api.request('GET', '/api/transcriptions/usage?days=2', { token });
    expect(after.body).toMatchObject({ totalUsage: 0, dailyUsage: [] });
  });

  it('keeps lists ordered by createdAt, whatever startedAt says', async () => {
    const token = await personIn('Asia/Shanghai');
    const newer = await save(token, 10, new Date(api.clock.now().getTime() - 3 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z'));
    api.clock.advance(2);
    const newest = await save(token, 10);
    const list = await api.request('GET', '/api/transcriptions', { token });
    expect(list.body.map((record: { transcriptionRecordId: number }) => record.transcriptionRecordId)).toEqual([newest.transcriptionRecordId, newer.transcriptionRecordId]);
  });

  it('refuses a startedAt more than 5 minutes ahead, more than 366 days back, or not a moment, and saves nothing', async () => {
    const token = await personIn(null);
    const now = api.clock.now().getTime();
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    for (const startedAt of [iso(now + 6 * 60_000), iso(now - 367 * 86_400_000), '2026-02-30T10:00:00Z', '2026-01-29T10:30:00+08:00', '2026-01-29 10:30:00']) {
      const response = await api.request('POST', '/api/transcriptions', { token, body: sampleRecord({ startedAt }) });
      expect(response.status, startedAt).toBe(400);
      expect(response.body).toMatchObject({ error: 'VALIDATION_FAILED', details: [expect.objectContaining({ path: 'body.startedAt' })] });
    }
    expect((await api.request('GET', '/api/transcriptions', { token })).body).toEqual([]);
    await save(token, 10, iso(now + 4 * 60_000));
    await save(token, 10, iso(now - 365 * 86_400_000));
  });
});
