import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestCode, signIn, startLocalApi, uniqueEmail, uniquePhone } from '../support/local-api';
import type { LocalApi } from '../support/local-api';

/**
 * Each business event publishes its metric exactly once, and nothing else is counted alongside it.
 * Read through the local server's metrics summary (the same counts the functions emit as EMF on
 * AWS). Its own file: cold starts are per handler module, and modules are per test file.
 */
let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi({ SMS_ALLOWED_COUNTRY_CODES: '86,1', REFRESH_GRACE_SECONDS: '0' });
});
afterAll(() => api?.close());

const key = (name: string, dimensions: Record<string, string>) => [name, ...Object.entries(dimensions).map(([k, v]) => `${k}=${v}`)].join(' ');
const totals = () => new Map(api.metrics.summary().map((total) => [key(total.name, total.dimensions), total.value]));

/** What `action` added to the metrics, cold starts left out (they are tested on their own). */
async function counted(action: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = totals();
  await action();
  const added: Record<string, number> = {};
  for (const [name, value] of totals()) {
    if (name.startsWith('ColdStart')) continue;
    if (value !== (before.get(name) ?? 0)) added[name] = value - (before.get(name) ?? 0);
  }
  return added;
}

const send = async (target: string) => {
  const response = await api.request('POST', '/api/verify-code/send', { body: { type: target.includes('@') ? 'email' : 'sms', target } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
};
const verify = (target: string, verifyCode: string) => api.request('POST', '/api/verify-code/verify', { body: { target, verifyCode } });
const RECORD = { recordTitle: 'Metrics', text: 'counted once', language: 'en-US', durationSeconds: 5 };

describe('business metrics', () => {
  it('count a cold start once per handler', async () => {
    const first = totals().get('ColdStart') ?? 0;
    expect((await api.request('GET', '/api/health')).status).toBe(200);
    expect(totals().get('ColdStart')).toBe(first + 1);
    expect((await api.request('GET', '/api/health')).status).toBe(200);
    expect(totals().get('ColdStart')).toBe(first + 1);
  });

  it('count codes sent by channel, SMS by country calling code, and failed deliveries', async () => {
    const email = uniqueEmail('metrics');
    await send(email); // cold start of the route out of the way
    api.clock.advance(61);
    expect(await counted(() => send(email))).toEqual({ 'CodesSent channel=email': 1 });
    expect(await counted(() => send(uniquePhone()))).toEqual({ 'CodesSent channel=sms': 1, 'SmsCodesSentByCountry country=86': 1 });
    expect(await counted(() => send('+16502530000'))).toEqual({ 'CodesSent channel=sms': 1, 'SmsCodesSentByCountry country=1': 1 });
    // A country not allowed gets the ordinary answer and no SMS: nothing is counted.
    expect(await counted(() => send('+447911123456'))).toEqual({});
    api.outbox.failNext();
    const failed = await counted(async () => {
      expect((await api.request('POST', '/api/verify-code/send', { body: { type: 'email', target: uniqueEmail('undeliverable') } })).status).toBe(503);
    });
    expect(failed).toEqual({ 'CodeDeliveryFailures channel=email': 1 });
  });

  it('count failed code verifications, accounts created and sign-ins by code', async () => {
    const email = uniqueEmail('metrics-code');
    await send(email);
    const code = latestCode(api, email);
    const wrong = code === '000000' ? '111111' : '000000';
    expect(await counted(async () => expect((await verify(email, wrong)).status).toBe(400))).toEqual({ CodeVerificationsFailed: 1 });
    expect(await counted(async () => expect((await verify(email, code)).status).toBe(200))).toEqual({ AccountsCreated: 1, 'SignIns method=code': 1 });
    // The same code again: spent.
    expect(await counted(async () => expect((await verify(email, code)).status).toBe(400))).toEqual({ CodeVerificationsFailed: 1 });
    api.clock.advance(61);
    await send(email);
    expect(await counted(async () => expect((await verify(email, latestCode(api, email))).status).toBe(200))).toEqual({ 'SignIns method=code': 1 });
  });

  it('count registrations, password sign-ins and one lockout', async () => {
    const email = uniqueEmail('metrics-password');
    await send(email);
    const registered = await counted(async () =>
      expect((await api.request('POST', '/api/auth/register', { body: { email, verifyCode: latestCode(api, email), password: 'metrics password 1' } })).status).toBe(200),
    );
    expect(registered).toEqual({ AccountsCreated: 1 });
    const login = (password: string) => api.request('POST', '/api/auth/login', { body: { email, password } });
    expect(await counted(async () => expect((await login('metrics password 1')).status).toBe(200))).toEqual({ 'SignIns method=password': 1 });
    const failures = await counted(async () => {
      for (let attempt = 0; attempt < 5; attempt++) expect((await login('wrong password 1')).status).toBe(400);
      // Locked now: refused without another lockout.
      expect((await login('wrong password 1')).body.error).toBe('LOGIN_LOCKED');
    });
    expect(failures).toEqual({ LoginLockouts: 1 });
  });

  it('count refreshes as sign-ins, and a reused refresh token once', async () => {
    const signed = await signIn(api, uniqueEmail('metrics-refresh'));
    const refresh = (refreshToken: string) => api.request('POST', '/api/auth/token/refresh', { body: { refreshToken } });
    const spent = (signed as unknown as { refreshToken: string }).refreshToken;
    expect(await counted(async () => expect((await refresh(spent)).status).toBe(200))).toEqual({ 'SignIns method=refresh': 1 });
    expect(await counted(async () => expect((await refresh(spent)).body.error).toBe('SESSION_ENDED'))).toEqual({ RefreshTokenReuse: 1 });
  });

  it('count records saved (not their replays), events recorded and accounts deleted', async () => {
    const { token } = await signIn(api, uniqueEmail('metrics-data'));
    const save = () => api.request('POST', '/api/transcriptions', { token, body: RECORD, headers: { 'Idempotency-Key': 'metrics-save-1' } });
    await api.request('POST', '/api/transcriptions', { token, body: RECORD }); // cold start
    expect(await counted(async () => expect((await save()).status).toBe(200))).toEqual({ RecordsSaved: 1 });
    expect(await counted(async () => expect((await save()).status).toBe(200))).toEqual({});
    const event = () => api.request('POST', '/api/behavior/login', { token, body: { location: 'Shanghai' } });
    expect(await counted(async () => expect((await event()).status).toBe(200))).toEqual({ EventsRecorded: 1 });
    expect(await counted(async () => expect((await api.request('DELETE', '/api/users/me', { token })).status).toBe(200))).toEqual({ AccountsDeleted: 1 });
  });

  it('are served at GET /dev/metrics', async () => {
    const response = await api.request('GET', '/dev/metrics');
    expect(response.status).toBe(200);
    expect(response.body).toContainEqual({ name: 'CodesSent', dimensions: { channel: 'email' }, value: expect.any(Number) });
  });
});
