import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_EMAIL, DEMO_PASSWORD, seedDemo } from '../../infra/tools/seed';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';

/** `npm run seed` against a local server: a demo account with a month of data, written once. */
let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api?.close());

const DAY_MS = 86_400_000;

describe('npm run seed', () => {
  it('creates a demo account with devices, a month of records and events, and signs in with the printed password', async () => {
    const lines: string[] = [];
    const summary = await seedDemo(api.url, (line) => lines.push(line));
    expect(summary).toMatchObject({ created: true, devices: 3 });
    expect(summary.records).toBeGreaterThanOrEqual(30);
    expect(summary.events).toBeGreaterThanOrEqual(30);

    const login = await api.request('POST', '/api/auth/login', { body: { email: DEMO_EMAIL, password: DEMO_PASSWORD } });
    expect(login.status).toBe(200);
    const token = login.body.token as string;

    // Spread over the last month by the records' own creation times, not all written "now".
    const usage = await api.request('GET', '/api/transcriptions/usage?days=31', { token });
    expect(usage.body.totalUsage).toBe(summary.usageSeconds);
    expect(usage.body.dailyUsage.length).toBeGreaterThanOrEqual(20);
    const oldest = usage.body.dailyUsage.at(-1).date as string;
    expect(Date.now() - Date.parse(oldest)).toBeGreaterThan(25 * DAY_MS);

    const records = await api.request('GET', '/api/transcriptions?limit=100', { token });
    expect(new Set(records.body.map((record: { language: string }) => record.language))).toEqual(new Set(['en-US', 'zh-CN']));
    // Saved through the client's outbox: each with its clientRecordId, the edited ones past revision 1.
    expect(records.body.every((record: { clientRecordId: string | null }) => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(record.clientRecordId ?? ''))).toBe(true);
    expect(records.body.some((record: { revision: number }) => record.revision > 1)).toBe(true);
    const stats = await api.request('GET', '/api/behavior/stats', { token });
    expect(stats.body.loginCount).toBeGreaterThanOrEqual(25);
    expect(stats.body.events.length).toBeGreaterThanOrEqual(3);
    const user = (await api.request('GET', '/api/users/me', { token })).body;
    expect(user.createdAt < records.body.at(-1).createdAt).toBe(true);
    expect(user).toMatchObject({ timeZone: 'Asia/Shanghai', locale: 'zh-CN' });
    // Records captured offline the evening before, synced in the morning: begun well before they were saved.
    // Written through the app's client (client/), which names its sessions.
    const sessions = await api.request('GET', '/api/auth/sessions', { token });
    expect(sessions.body.some((session: { clientName: string }) => session.clientName === 'npm run seed')).toBe(true);
    const offline = records.body.filter((record: { startedAt: string; createdAt: string }) => Date.parse(record.createdAt) - Date.parse(record.startedAt) > 3_600_000);
    expect(offline.length).toBeGreaterThanOrEqual(2);
  }, 240_000);

  it('changes nothing when run again', async () => {
    const first = await seedDemo(api.url, () => undefined);
    const again = await seedDemo(api.url, () => undefined);
    expect(first).toMatchObject({ created: false });
    expect(again).toEqual(first);
  }, 60_000);
});
