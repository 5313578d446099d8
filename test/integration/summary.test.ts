import type { MiddlewareStack } from '@smithy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { newAccount, postEvent, saveRecord } from '../support/resources';
import type { Account } from '../support/resources';

/**
 * GET /api/users/me/summary answers what the separate reads answer (the user, the first page of
 * devices, a week of usage, the settings), with seven DynamoDB requests sent at once.
 * The local server's handlers use the DynamoDB client of `api.context.db`; a middleware on it
 * records every command they send and how many were in flight together.
 */
let api: LocalApi;
let serial = 0;
const nextSn = () => `SUM-${Date.now().toString(36)}-${serial++}`;

interface Traffic {
  commands: string[];
  inFlight: number;
  maxInFlight: number;
}
let traffic: Traffic | undefined;

beforeAll(async () => {
  // Long-lived tokens, so the clock can move across days without signing in again.
  api = await startLocalApi({ TOKEN_TTL_MS: String(400 * 86_400_000) });
  const stack = api.context.db.client.middlewareStack as unknown as MiddlewareStack<any, any>;
  stack.add(
    (next, context) => async (args) => {
      const seen = traffic;
      if (!seen) return next(args);
      seen.commands.push(String(context.commandName));
      seen.maxInFlight = Math.max(seen.maxInFlight, ++seen.inFlight);
      try {
        return await next(args);
      } finally {
        seen.inFlight--;
      }
    },
    { step: 'initialize', name: 'summaryTraffic' },
  );
});
afterAll(() => api?.close());

const get = async (account: Account, path: string) => {
  const response = await api.request('GET', path, { token: account.token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response;
};

async function bindDevices(account: Account, count: number) {
  for (let index = 0; index < count; index++) {
    const response = await api.request('POST', '/api/devices', {
      token: account.token,
      body: { sn: nextSn(), mac: '00:11:22:33:44:55', productModel: `Glass ${index}` },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    api.clock.advance(1);
  }
}

describe('GET /api/users/me/summary', () => {
  it('of a new account: the user, no devices, no usage, no settings', async () => {
    api.clock.set(new Date('2032-01-10T12:00:00Z'));
    const account = await newAccount(api, 'summary-new');
    const me = (await get(account, '/api/users/me')).body;
    expect((await get(account, '/api/users/me/summary')).body).toEqual({
      user: me,
      devices: { items: [], hasMore: false, nextCursor: null },
      usage: { totalUsage: 0, today: { date: '2032-01-10', usage: 0 }, dailyUsage: [] },
      settings: {},
      speech: {
        day: { date: '2032-01-10', usedSeconds: 0, limitSeconds: 7_200, remainingSeconds: 7_200, resetsAt: '2032-01-11T00:00:00Z' },
        month: { date: '2032-01', usedSeconds: 0, limitSeconds: 108_000, remainingSeconds: 108_000, resetsAt: '2032-02-01T00:00:00Z' },
        sessionMaxSeconds: 14_400,
        liveSessions: 0,
      },
    });
  });

  it('answers what GET /api/users/me, /api/devices, /api/transcriptions/usage?days=7 and the last events answer, in the account’s time zone', async () => {
    // 11:00 UTC on the 20th is already the 21st at UTC+14: "today" is a date UTC has not reached.
    api.clock.set(new Date('2032-02-10T11:00:00Z'));
    const account = await newAccount(api, 'summary-full');
    expect((await api.request('PATCH', '/api/users/me', { token: account.token, body: { timeZone: 'Pacific/Kiritimati' } })).status).toBe(200);
    // Records on 12 days: some fall out of the week, some in it.
    for (let day = 0; day < 12; day++) {
      await saveRecord(api, account, { durationSeconds: 10 + day });
      api.clock.advance(86_400);
    }
    await bindDevices(account, 22);
    await postEvent(api, account, 'subtitle_layout', 'top');
    api.clock.advance(60);
    await postEvent(api, account, 'subtitle_layout', 'bottom');
    await postEvent(api, account, 'translation_on', 'true');
    const lastAt = new Date(api.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');

    const summary = (await get(account, '/api/users/me/summary')).body;
    const me = (await get(account, '/api/users/me')).body;
    const devices = await get(account, '/api/devices?limit=20');
    const usage = (await get(account, '/api/transcriptions/usage?days=7')).body;

    expect(summary.user).toEqual(me);
    expect(summary.devices).toEqual({ items: devices.body, hasMore: true, nextCursor: devices.headers.get('x-next-cursor') });
    expect(summary.devices.items).toHaveLength(20);
    // The cursor continues the list where the summary stopped.
    const rest = (await get(account, `/api/devices?cursor=${summary.devices.nextCursor}`)).body;
    expect(rest).toHaveLength(2);
    expect(summary.usage.totalUsage).toBe(usage.totalUsage);
    expect(summary.usage.dailyUsage).toEqual(usage.dailyUsage);
    expect(summary.usage.dailyUsage).toHaveLength(6);
    expect(summary.usage.today).toEqual({ date: '2032-02-23', usage: 0 });
    expect(summary.usage.dailyUsage[0].date).toBe('2032-02-22');
    expect(summary.settings).toEqual({
      subtitle_layout: { value: 'bottom', occurredAt: lastAt },
      translation_on: { value: 'true', occurredAt: lastAt },
    });
    // The speech quota as GET /api/speech/quota answers it, on the zone's today.
    expect(summary.speech).toEqual((await get(account, '/api/speech/quota')).body);
    expect(summary.speech.day.date).toBe('2032-02-23');
  });

  it('counts today’s usage in today', async () => {
    api.clock.set(new Date('2032-03-05T09:00:00Z'));
    const account = await newAccount(api, 'summary-today');
    await saveRecord(api, account, { durationSeconds: 42 });
    await saveRecord(api, account, { durationSeconds: 8 });
    const { usage } = (await get(account, '/api/users/me/summary')).body;
    expect(usage).toEqual({ totalUsage: 50, today: { date: '2032-03-05', usage: 50 }, dailyUsage: [{ date: '2032-03-05', usage: 50 }] });
  });

  it('is served under /api/v1 too', async () => {
    const account = await newAccount(api, 'summary-v1');
    expect((await get(account, '/api/v1/users/me/summary')).body.user.userId).toBe(account.userId);
  });

  it('costs seven DynamoDB requests (two reads by key, five Queries, no Scan), all in flight together', async () => {
    api.clock.set(new Date('2032-04-01T10:00:00Z'));
    const account = await newAccount(api, 'summary-cost');
    await bindDevices(account, 25);
    for (let index = 0; index < 10; index++) await saveRecord(api, account, { durationSeconds: 5 });
    for (const [eventType, eventValue] of [['voice_provider', 'azure'], ['language_choice', 'zh-CN'], ['ambient_sound', 'enabled'], ['volume_detection', 'auto']]) {
      await postEvent(api, account, eventType!, eventValue!);
    }
    // The first request fills the authorizer's cache; the measured one runs the handler alone.
    await get(account, '/api/users/me/summary');
    traffic = { commands: [], inFlight: 0, maxInFlight: 0 };
    await get(account, '/api/users/me/summary');
    const seen = traffic;
    traffic = undefined;
    // The profile, devices, usage and statistics; the speech quota's live sessions, days and months.
    expect(seen.commands.sort()).toEqual(['GetItemCommand', 'GetItemCommand', 'QueryCommand', 'QueryCommand', 'QueryCommand', 'QueryCommand', 'QueryCommand']);
    expect(seen.maxInFlight).toBe(7);
  });

  it('refuses a token whose session has ended with 401', async () => {
    const account = await newAccount(api, 'summary-ended');
    expect((await api.request('DELETE', '/api/auth/sessions', { token: account.token })).status).toBe(200);
    const sessions = (await get(account, '/api/auth/sessions')).body as { sessionId: string }[];
    const own = await api.request('DELETE', `/api/auth/sessions/${sessions[0]!.sessionId}`, { token: account.token });
    expect(own.status).toBe(200);
    expect((await api.request('GET', '/api/users/me/summary', { token: account.token })).status).toBe(401);
  });
});
