import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeStanding, readProfileItem } from '../../shared/db/account-standing-repository';
import { startLocalApi, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { expectError, sessionHelpers } from '../support/sessions';
import type { Signed } from '../support/sessions';

/**
 * PUT and DELETE /api/auth/sessions/current/push (issue 45, docs/realtime.md#the-silent-push): the
 * app's push token kept on its own session, through the local server over HTTP against DynamoDB
 * Local. The pushes themselves: test/integration/realtime-push.test.ts.
 */
let api: LocalApi;
let helpers: ReturnType<typeof sessionHelpers>;

beforeAll(async () => {
  api = await startLocalApi({ CODE_RESEND_SECONDS: '1' });
  helpers = sessionHelpers(api);
});
afterAll(() => api?.close());

const APNS_TOKEN = 'a1b2c3d4'.repeat(8);
const put = (token: string | undefined, body: unknown) => api.request('PUT', '/api/auth/sessions/current/push', { ...(token ? { token } : {}), body });
const remove = (token: string | undefined) => api.request('DELETE', '/api/auth/sessions/current/push', token ? { token } : {});

/** The session item of a signed-in app, as the table holds it (undefined: no item). */
async function sessionItem(signed: Signed): Promise<Record<string, unknown> | undefined> {
  const sessions = await helpers.sessions(signed.token);
  const current = (sessions.body as { sessionId: string; current: boolean }[]).find((session) => session.current);
  return sessionItemById(signed.userId, current!.sessionId);
}
const sessionItemById = async (userId: number, sessionId: string) =>
  (await api.db.client.send(new GetCommand({ TableName: api.db.tableName, Key: { PK: `USER#${userId}`, SK: `SESSION#${sessionId}` } }))).Item;

describe('PUT /api/auth/sessions/current/push', () => {
  it('keeps the token on the caller\'s own session, the next replacing it; the session list never shows it', async () => {
    const email = uniqueEmail('push-keep');
    const phone = await helpers.signIn(email);
    const tablet = await helpers.signIn(email);
    const kept = await put(phone.token, { platform: 'apns', token: APNS_TOKEN, environment: 'sandbox' });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body).toEqual({ code: 0, message: expect.any(String) });
    expect(await sessionItem(phone)).toMatchObject({ pushPlatform: 'apns', pushToken: APNS_TOKEN, pushEnvironment: 'sandbox' });
    expect((await sessionItem(tablet))?.pushToken).toBeUndefined();
    // An environment left out is production; an FCM token replaces an APNs one.
    expect((await put(phone.token, { platform: 'apns', token: APNS_TOKEN.toUpperCase() })).status).toBe(200);
    expect(await sessionItem(phone)).toMatchObject({ pushToken: APNS_TOKEN.toUpperCase(), pushEnvironment: 'production' });
    expect((await put(tablet.token, { platform: 'fcm', token: 'dGVzdA:APA91bH-fcm_token' })).status).toBe(200);
    expect(await sessionItem(tablet)).toMatchObject({ pushPlatform: 'fcm', pushToken: 'dGVzdA:APA91bH-fcm_token' });
    const listed = await helpers.sessions(phone.token);
    expect(JSON.stringify(listed.body)).not.toContain(APNS_TOKEN.toUpperCase());
    expect(JSON.stringify(listed.body)).not.toContain('push');
  });

  it('refuses a token not shaped as its platform\'s, naming the field, and keeps nothing', async () => {
    const signed = await helpers.signIn(uniqueEmail('push-invalid'));
    const refusals: [unknown, string][] = [
      [{ platform: 'apns', token: 'not-hex-at-all'.padEnd(64, 'x') }, 'body.token'],
      [{ platform: 'apns', token: 'ab'.repeat(31) }, 'body.token'],
      [{ platform: 'apns', token: 'ab'.repeat(101) }, 'body.token'],
      [{ platform: 'fcm', token: '' }, 'body.token'],
      [{ platform: 'fcm', token: 'has a space' }, 'body.token'],
      [{ platform: 'fcm', token: 'x'.repeat(4097) }, 'body.token'],
      [{ platform: 'apns', token: APNS_TOKEN, environment: 'staging' }, 'body.environment'],
      [{ platform: 'webpush', token: 'x' }, 'body.platform'],
      [{ token: APNS_TOKEN }, 'body.platform'],
    ];
    for (const [body, path] of refusals) {
      const response = await put(signed.token, body);
      expectError(response, 400, 'VALIDATION_FAILED');
      expect(response.body.details.map((detail: { path: string }) => detail.path), JSON.stringify(body).slice(0, 100)).toContain(path);
    }
    expect((await sessionItem(signed))?.pushToken).toBeUndefined();
  });

  it('refuses a request without credentials', async () => {
    expect((await put(undefined, { platform: 'apns', token: APNS_TOKEN })).status).toBe(401);
    expect((await remove(undefined)).status).toBe(401);
  });

  it('a disabled account keeps no token: 403 ACCOUNT_DISABLED with its token still allowed', async () => {
    const signed = await helpers.signIn(uniqueEmail('push-disabled'));
    // A first request: the authorizer's Allow is cached, as it stays for minutes on AWS.
    expect((await put(signed.token, { platform: 'apns', token: APNS_TOKEN })).status).toBe(200);
    await changeStanding(api.db, (await readProfileItem(api.db, signed.userId))!, { disable: '2026-01-01T00:00:00Z' });
    expectError(await put(signed.token, { platform: 'apns', token: APNS_TOKEN }), 403, 'ACCOUNT_DISABLED');
    expectError(await remove(signed.token), 403, 'ACCOUNT_DISABLED');
  });
});

describe('DELETE /api/auth/sessions/current/push', () => {
  it('removes the token of the caller\'s session only; again answers 200', async () => {
    const email = uniqueEmail('push-remove');
    const phone = await helpers.signIn(email);
    const tablet = await helpers.signIn(email);
    await put(phone.token, { platform: 'apns', token: APNS_TOKEN });
    await put(tablet.token, { platform: 'fcm', token: 'tablet-token' });
    expect((await remove(phone.token)).status).toBe(200);
    const item = await sessionItem(phone);
    expect(item).toBeDefined();
    expect(Object.keys(item!).filter((name) => name.startsWith('push'))).toEqual([]);
    expect((await remove(phone.token)).status).toBe(200);
    expect((await sessionItem(tablet))?.pushToken).toBe('tablet-token');
  });
});

describe('the token ends with its session', () => {
  it('sign-out removes it with the session, and the ended session\'s token cannot put it back', async () => {
    const email = uniqueEmail('push-signout');
    const phone = await helpers.signIn(email);
    const tablet = await helpers.signIn(email);
    await put(phone.token, { platform: 'apns', token: APNS_TOKEN });
    const sessionId = ((await helpers.sessions(phone.token)).body as { sessionId: string; current: boolean }[]).find((session) => session.current)!.sessionId;
    expect((await api.request('POST', '/api/auth/logout', { token: phone.token, body: { refreshToken: phone.refreshToken } })).status).toBe(200);
    expect(await sessionItemById(phone.userId, sessionId)).toBeUndefined();
    expect((await put(phone.token, { platform: 'apns', token: APNS_TOKEN })).status).toBe(401);
    expect(await sessionItemById(phone.userId, sessionId)).toBeUndefined();
    expect((await sessionItem(tablet))?.pushToken).toBeUndefined();
  });

  it('ending the session from another device removes it too', async () => {
    const email = uniqueEmail('push-ended');
    const phone = await helpers.signIn(email);
    const tablet = await helpers.signIn(email);
    await put(phone.token, { platform: 'fcm', token: 'phone-token' });
    const sessionId = ((await helpers.sessions(phone.token)).body as { sessionId: string; current: boolean }[]).find((session) => session.current)!.sessionId;
    expect((await api.request('DELETE', `/api/auth/sessions/${sessionId}`, { token: tablet.token })).status).toBe(200);
    expect(await sessionItemById(phone.userId, sessionId)).toBeUndefined();
    expect((await put(phone.token, { platform: 'fcm', token: 'phone-token' })).status).toBe(401);
  });
});
