import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt, decodeProtectedHeader, exportPKCS8, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPushStandIns } from '../../infra/local/push-stand-ins';
import type { PushStandIns } from '../../infra/local/push-stand-ins';
import { startLocalApi, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { isPoke, openChannel, ticketFor } from '../support/realtime';
import type { Channel } from '../support/realtime';
import { sampleRecord } from '../support/resources';
import { sessionHelpers } from '../support/sessions';
import type { Signed } from '../support/sessions';

/**
 * The silent push for closed apps (issue 45, docs/realtime.md#the-silent-push), end to end: the
 * local server's fan-out against the APNs and FCM stand-ins (infra/local/push-stand-ins.ts), which
 * check the provider JWT (ES256, team and key id), the headers and body of a background push, and
 * FCM's OAuth exchange (the JWT-bearer assertion signed with the service account's key) as Apple
 * and Google do. Real sessions, real WebSockets, DynamoDB Local.
 */
let standIns: PushStandIns;
let api: LocalApi;
let helpers: ReturnType<typeof sessionHelpers>;
const opened: Channel[] = [];
const extra: LocalApi[] = [];

const pushEnv = (ins: PushStandIns, overrides: Record<string, string> = {}) => ({
  CODE_RESEND_SECONDS: '1',
  APNS_URL: ins.apnsUrl,
  APNS_TEAM_ID: ins.apns.teamId,
  APNS_KEY_ID: ins.apns.keyId,
  APNS_TOPIC: ins.apns.topic,
  APNS_PRIVATE_KEY: ins.apns.privateKeyPem,
  FCM_URL: ins.fcmUrl,
  FCM_TOKEN_URL: ins.fcmTokenUrl,
  FCM_SERVICE_ACCOUNT: JSON.stringify(ins.fcm.serviceAccount),
  ...overrides,
});

beforeAll(async () => {
  standIns = await startPushStandIns();
  api = await startLocalApi(pushEnv(standIns));
  helpers = sessionHelpers(api);
});
afterAll(async () => {
  for (const channel of opened) channel.close();
  for (const other of extra) await other.close();
  await api?.close();
  await standIns?.close();
});

let tokens = 0;
/** A fresh APNs device token (64 hex characters) or FCM registration token. */
const apnsToken = () => (++tokens).toString(16).padStart(8, '0').repeat(8);
const fcmToken = () => `fcm-${++tokens}:APA91b-local`;

async function register(server: LocalApi, signed: Signed, body: { platform: 'apns' | 'fcm'; token: string; environment?: 'sandbox' | 'production' }) {
  const response = await server.request('PUT', '/api/auth/sessions/current/push', { token: signed.token, body });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
}
async function save(server: LocalApi, signed: Signed) {
  const response = await server.request('POST', '/api/transcriptions', { token: signed.token, body: sampleRecord() });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
}
async function connect(server: LocalApi, signed: Signed): Promise<Channel> {
  const channel = await openChannel((await ticketFor(server, signed.token)).url);
  opened.push(channel);
  return channel;
}
const deliveredTo = (token: string) => standIns.delivered.filter((delivery) => delivery.token === token.toLowerCase() || delivery.token === token);
/** Every fan-out the writes so far started has finished, and 100 ms more passed: a push still to come would have come. */
const quiet = async () => {
  await api.settled();
  await new Promise((resolve) => setTimeout(resolve, 100));
};
const counted = (server: LocalApi, name: string) =>
  Object.fromEntries(server.metrics.summary().filter((total) => total.name === name).map((total) => [total.dimensions.provider, total.value]));
const sessionIdOf = async (server: LocalApi, signed: Signed) =>
  ((await server.request('GET', '/api/auth/sessions', { token: signed.token })).body as { sessionId: string; current: boolean }[]).find((session) => session.current)!.sessionId;
const pushTokenOn = async (server: LocalApi, signed: Signed, sessionId: string) =>
  (await server.db.client.send(new GetCommand({ TableName: server.db.tableName, Key: { PK: `USER#${signed.userId}`, SK: `SESSION#${sessionId}` } }))).Item?.pushToken;

describe('the silent push', () => {
  it('wakes only the sessions with a token and no open connection, of that person only', async () => {
    const email = uniqueEmail('push-who');
    const phone = await helpers.signIn(email); // iPhone, closed
    const pixel = await helpers.signIn(email); // Android, closed
    const tablet = await helpers.signIn(email); // open: its live channel is connected
    const laptop = await helpers.signIn(email); // no token
    const stranger = await helpers.signIn(uniqueEmail('push-stranger'));
    const [phoneToken, pixelToken, tabletToken, strangerToken] = [apnsToken(), fcmToken(), apnsToken(), apnsToken()];
    await register(api, phone, { platform: 'apns', token: phoneToken });
    await register(api, pixel, { platform: 'fcm', token: pixelToken });
    await register(api, tablet, { platform: 'apns', token: tabletToken });
    await register(api, stranger, { platform: 'apns', token: strangerToken });
    const tabletChannel = await connect(api, tablet);
    const poked = tabletChannel.next(isPoke, 2000);

    await save(api, laptop);
    await poked;
    await expect.poll(() => deliveredTo(phoneToken).length, { timeout: 3000 }).toBe(1);
    await expect.poll(() => deliveredTo(pixelToken).length, { timeout: 3000 }).toBe(1);
    await quiet();
    expect(deliveredTo(tabletToken)).toEqual([]);
    expect(deliveredTo(strangerToken)).toEqual([]);
    // What Apple got: a background push at priority 5 to the app's topic; what FCM got: a data message at normal priority.
    expect(deliveredTo(phoneToken)[0]!.detail).toMatchObject({ 'apns-push-type': 'background', 'apns-priority': '5', 'apns-topic': standIns.apns.topic });
    expect(deliveredTo(pixelToken)[0]!.detail).toMatchObject({ token: pixelToken, data: { type: 'changes' }, android: { priority: 'normal' } });
    expect(deliveredTo(pixelToken)[0]!.detail).not.toHaveProperty('notification');
  });

  it('sends at most one push per session per PUSH_MIN_INTERVAL_SECONDS, however many changes arrive at once', async () => {
    const email = uniqueEmail('push-interval');
    const phone = await helpers.signIn(email);
    const laptop = await helpers.signIn(email);
    const phoneToken = apnsToken();
    await register(api, phone, { platform: 'apns', token: phoneToken });
    // Ten saves in parallel: ten fan-outs of one account, one push.
    await Promise.all(Array.from({ length: 10 }, () => save(api, laptop)));
    await expect.poll(() => deliveredTo(phoneToken).length, { timeout: 3000 }).toBe(1);
    await quiet();
    expect(deliveredTo(phoneToken)).toHaveLength(1);
    // Within the interval: nothing, even after the app sent its token again (as it does at every launch);
    // once the interval has passed: the next change pushes again.
    api.clock.advance(api.config.PUSH_MIN_INTERVAL_SECONDS - 5);
    await register(api, phone, { platform: 'apns', token: phoneToken });
    await save(api, laptop);
    await quiet();
    expect(deliveredTo(phoneToken)).toHaveLength(1);
    api.clock.advance(5);
    await Promise.all(Array.from({ length: 5 }, () => save(api, laptop)));
    await expect.poll(() => deliveredTo(phoneToken).length, { timeout: 3000 }).toBe(2);
    await quiet();
    expect(deliveredTo(phoneToken)).toHaveLength(2);
  });

  it('removes a token the provider reports dead: APNs 410 Unregistered and 400 BadDeviceToken, FCM 404 UNREGISTERED', async () => {
    const email = uniqueEmail('push-dead');
    const [gone, bad, uninstalled, laptop] = [await helpers.signIn(email), await helpers.signIn(email), await helpers.signIn(email), await helpers.signIn(email)];
    const [goneToken, badToken, uninstalledToken] = [apnsToken(), apnsToken(), fcmToken()];
    standIns.apns.unregistered.add(goneToken);
    standIns.apns.bad.add(badToken);
    standIns.fcm.unregistered.add(uninstalledToken);
    await register(api, gone, { platform: 'apns', token: goneToken });
    await register(api, bad, { platform: 'apns', token: badToken });
    await register(api, uninstalled, { platform: 'fcm', token: uninstalledToken });
    const sessions = { gone: await sessionIdOf(api, gone), bad: await sessionIdOf(api, bad), uninstalled: await sessionIdOf(api, uninstalled) };
    const before = { apns: counted(api, 'PushTokensRemoved').apns ?? 0, fcm: counted(api, 'PushTokensRemoved').fcm ?? 0 };
    await save(api, laptop);
    await expect.poll(() => pushTokenOn(api, gone, sessions.gone), { timeout: 3000 }).toBeUndefined();
    await expect.poll(() => pushTokenOn(api, bad, sessions.bad), { timeout: 3000 }).toBeUndefined();
    await expect.poll(() => pushTokenOn(api, uninstalled, sessions.uninstalled), { timeout: 3000 }).toBeUndefined();
    expect(counted(api, 'PushTokensRemoved')).toMatchObject({ apns: before.apns + 2, fcm: before.fcm + 1 });
    expect(standIns.apns.refusals).toEqual(expect.arrayContaining([{ status: 410, reason: 'Unregistered' }, { status: 400, reason: 'BadDeviceToken' }]));
    // The sessions themselves stay signed in.
    await helpers.expectTokenWorks(gone.token);
  });

  it('a signed-out session gets no push: its token went with it', async () => {
    const email = uniqueEmail('push-signed-out');
    const phone = await helpers.signIn(email);
    const laptop = await helpers.signIn(email);
    const phoneToken = apnsToken();
    await register(api, phone, { platform: 'apns', token: phoneToken });
    expect((await api.request('POST', '/api/auth/logout', { token: phone.token, body: { refreshToken: phone.refreshToken } })).status).toBe(200);
    await save(api, laptop);
    await quiet();
    expect(deliveredTo(phoneToken)).toEqual([]);
  });

  it('a failing provider stops no poke: the connected app is poked, the failure counted, the token kept', async () => {
    const email = uniqueEmail('push-failing');
    const phone = await helpers.signIn(email);
    const pixel = await helpers.signIn(email);
    const tablet = await helpers.signIn(email);
    const [phoneToken, pixelToken] = [apnsToken(), fcmToken()];
    await register(api, phone, { platform: 'apns', token: phoneToken });
    await register(api, pixel, { platform: 'fcm', token: pixelToken });
    const channel = await connect(api, tablet);
    const before = counted(api, 'PushFailures');
    standIns.apns.mode = 'fail';
    standIns.fcm.mode = 'fail';
    try {
      const poked = channel.next(isPoke, 2000);
      await save(api, tablet);
      expect(await poked).toEqual({ type: 'changes' });
      await expect.poll(() => counted(api, 'PushFailures'), { timeout: 3000 }).toEqual({ apns: (before.apns ?? 0) + 1, fcm: (before.fcm ?? 0) + 1 });
    } finally {
      standIns.apns.mode = 'ok';
      standIns.fcm.mode = 'ok';
    }
    expect(await pushTokenOn(api, phone, await sessionIdOf(api, phone))).toBe(phoneToken);
    // The next save pokes again, whatever the pushes did.
    const again = channel.next(isPoke, 2000);
    await save(api, phone);
    await again;
  });
});

describe('the providers\' credentials, as the stand-ins check them', () => {
  it('APNs: one ES256 JWT of the team\'s key (kid the key id, iss the team id, iat), reused between pushes', async () => {
    const email = uniqueEmail('push-jwt');
    const devices = [await helpers.signIn(email), await helpers.signIn(email), await helpers.signIn(email)];
    const phoneTokens = [apnsToken(), apnsToken()];
    await register(api, devices[0]!, { platform: 'apns', token: phoneTokens[0]! });
    await register(api, devices[1]!, { platform: 'apns', token: phoneTokens[1]!, environment: 'sandbox' });
    await save(api, devices[2]!);
    await expect.poll(() => phoneTokens.map((token) => deliveredTo(token).length), { timeout: 3000 }).toEqual([1, 1]);
    // Every push of this server so far carried one and the same provider token.
    expect(standIns.apns.jwts).toHaveLength(1);
    const jwt = standIns.apns.jwts[0]!;
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'ES256', kid: standIns.apns.keyId });
    expect(decodeJwt(jwt)).toEqual({ iss: standIns.apns.teamId, iat: expect.any(Number) });
  });

  it('APNs refuses a JWT of another key, key id or team: the push fails and the token stays', async () => {
    const other = await generateKeyPair('ES256', { extractable: true });
    const wrongs: Record<string, string>[] = [{ APNS_PRIVATE_KEY: await exportPKCS8(other.privateKey) }, { APNS_KEY_ID: 'WRONGKEY01' }, { APNS_TEAM_ID: 'WRONGTEAM1' }];
    for (const overrides of wrongs) {
      const server = await startLocalApi(pushEnv(standIns, overrides));
      extra.push(server);
      const signIns = sessionHelpers(server);
      const email = uniqueEmail('push-refused');
      const phone = await signIns.signIn(email);
      const laptop = await signIns.signIn(email);
      const phoneToken = apnsToken();
      await register(server, phone, { platform: 'apns', token: phoneToken });
      const refusals = standIns.apns.refusals.length;
      await save(server, laptop);
      await expect.poll(() => counted(server, 'PushFailures').apns ?? 0, { timeout: 3000 }).toBe(1);
      expect(standIns.apns.refusals.slice(refusals)).toEqual([{ status: 403, reason: 'InvalidProviderToken' }]);
      expect(deliveredTo(phoneToken)).toEqual([]);
      expect(await pushTokenOn(server, phone, await sessionIdOf(server, phone))).toBe(phoneToken);
    }
  });

  it('FCM: the service account\'s JWT exchanged once for an access token, kept for the pushes after; another key is refused', async () => {
    const server = await startLocalApi(pushEnv(standIns));
    extra.push(server);
    const signIns = sessionHelpers(server);
    const email = uniqueEmail('push-oauth');
    const [first, second, laptop] = [await signIns.signIn(email), await signIns.signIn(email), await signIns.signIn(email)];
    const tokensOf = [fcmToken(), fcmToken()];
    await register(server, first, { platform: 'fcm', token: tokensOf[0]! });
    const exchanges = standIns.fcm.exchanges;
    await save(server, laptop);
    await expect.poll(() => deliveredTo(tokensOf[0]!).length, { timeout: 3000 }).toBe(1);
    await register(server, second, { platform: 'fcm', token: tokensOf[1]! });
    await save(server, laptop);
    await expect.poll(() => deliveredTo(tokensOf[1]!).length, { timeout: 3000 }).toBe(1);
    expect(standIns.fcm.exchanges - exchanges).toBe(1);

    // A service account whose key Google does not know: the assertion is refused, nothing is sent.
    const stranger = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 });
    const forged = await startLocalApi(pushEnv(standIns, { FCM_SERVICE_ACCOUNT: JSON.stringify({ ...standIns.fcm.serviceAccount, private_key: await exportPKCS8(stranger.privateKey) }) }));
    extra.push(forged);
    const forgedSignIns = sessionHelpers(forged);
    const forgedEmail = uniqueEmail('push-oauth-forged');
    const pixel = await forgedSignIns.signIn(forgedEmail);
    const other = await forgedSignIns.signIn(forgedEmail);
    const pixelToken = fcmToken();
    await register(forged, pixel, { platform: 'fcm', token: pixelToken });
    await save(forged, other);
    await expect.poll(() => counted(forged, 'PushFailures').fcm ?? 0, { timeout: 3000 }).toBe(1);
    expect(deliveredTo(pixelToken)).toEqual([]);
  });
});
