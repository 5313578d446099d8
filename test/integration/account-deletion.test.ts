import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as resumeAccountPurgesJob } from '../../functions/jobs/resume-account-purges';
import { endAccount, purgeAccountData, resumePendingPurges } from '../../shared/db/account-deletion';
import { keys } from '../../shared/db/keys';
import { findUserById } from '../../shared/db/users-repository';
import { latestCode, signIn, startLocalApi, uniqueEmail, uniquePhone } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { postEvent, saveRecord, walkList } from '../support/resources';
import type { Account } from '../support/resources';
import { SoftwareAuthenticator } from '../support/software-authenticator';

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api?.close());
afterEach(() => api.clock.reset());

let serial = 0;
const nextSn = () => `DEL-${Date.now().toString(36)}-${serial++}`;

async function signUp(target: string): Promise<Account & { target: string }> {
  const session = await signIn(api, target);
  return { token: session.token, userId: session.userId, target };
}

const bind = (account: Account, sn: string) =>
  api.request('POST', '/api/devices', { token: account.token, body: { sn, mac: '00:11:22:33:44:55', productModel: 'Glass' } });

/** Every item in the account's partition, and whether the markers outside it remain. */
async function partition(userId: number) {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await api.db.client.send(
      new QueryCommand({
        TableName: api.db.tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': keys.userPartition(userId) },
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

const exists = async (key: Record<string, string>) =>
  Boolean((await api.db.client.send(new GetCommand({ TableName: api.db.tableName, Key: key, ConsistentRead: true }))).Item);

/** An account with a bit of everything: two devices, records, events, a login, an idempotency record. */
async function populated(target: string) {
  const account = await signUp(target);
  const serials = [nextSn(), nextSn()];
  for (const sn of serials) expect((await bind(account, sn)).status).toBe(200);
  for (let index = 0; index < 3; index++) await saveRecord(api, account, { durationSeconds: 10 });
  await saveRecord(api, account, { durationSeconds: 10 }, { 'Idempotency-Key': randomUUID() });
  await postEvent(api, account, 'voice_provider', 'azure');
  await postEvent(api, account, 'translation_on', 'true');
  expect((await api.request('POST', '/api/behavior/login', { token: account.token, body: { location: 'Home' } })).status).toBe(200);
  return { ...account, serials };
}

describe('DELETE /api/users/me', () => {
  it('removes the account and everything it owns, and frees its e-mail and serials', async () => {
    const email = uniqueEmail('delete');
    const account = await populated(email);
    expect((await partition(account.userId)).length).toBeGreaterThan(10);

    const response = await api.request('DELETE', '/api/users/me', { token: account.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ code: 0, message: expect.any(String) });

    expect(await partition(account.userId)).toEqual([]);
    expect(await exists(keys.identity('email', email))).toBe(false);
    for (const sn of account.serials) expect(await exists(keys.deviceOwner(sn))).toBe(false);
    expect(await exists(keys.pendingPurge(account.userId))).toBe(false);

    // The serials are free for anyone.
    const other = await signUp(uniqueEmail('other'));
    expect((await bind(other, account.serials[0]!)).status).toBe(200);
  });

  it('ends the tokens of the account at once, for reads and writes, and writes leave nothing behind', async () => {
    const account = await populated(uniqueEmail('tokens'));
    // Warm the authorizer cache: API Gateway would keep serving this Allow for minutes.
    expect((await api.request('GET', '/api/devices', { token: account.token })).status).toBe(200);
    const id = (await api.request('GET', '/api/transcriptions', { token: account.token })).body[0].transcriptionRecordId;
    const [session] = (await api.request('GET', '/api/auth/sessions', { token: account.token })).body;
    const passkeyOptions = (await api.request('POST', '/api/auth/passkeys/registration-options', { token: account.token })).body;
    const passkey = new SoftwareAuthenticator({ origin: 'http://localhost:8080' }).create(passkeyOptions);
    const passkeyId = 'A'.repeat(43);
    const [newEmail, newPhone] = [uniqueEmail('after'), uniquePhone()];
    for (const [type, target] of [['email', newEmail], ['sms', newPhone]]) expect((await api.request('POST', '/api/verify-code/send', { body: { type, target } })).status).toBe(200);
    expect((await api.request('DELETE', '/api/users/me', { token: account.token })).status).toBe(200);

    // Every Bearer route (test/unit/route-coverage.test.ts holds a new one to an entry here), with a request it would otherwise take.

    const attempts = [
      api.request('GET', '/api/users/me', { token: account.token }),
      api.request('GET', '/api/devices', { token: account.token }),
      api.request('GET', '/api/transcriptions', { token: account.token }),
      api.request('GET', '/api/transcriptions/usage', { token: account.token }),
      api.request('GET', '/api/behavior/stats', { token: account.token }),
      api.request('GET', '/api/behavior/login', { token: account.token }),
      api.request('GET', `/api/transcriptions/${id}`, { token: account.token }),
      api.request('PATCH', `/api/transcriptions/${id}`, { token: account.token, body: { recordTitle: 'x' } }),
      api.request('DELETE', `/api/transcriptions/${id}`, { token: account.token }),
      api.request('DELETE', `/api/devices/${account.serials[0]}`, { token: account.token }),
      api.request('POST', '/api/devices', { token: account.token, body: { sn: nextSn(), mac: '00:11:22:33:44:55', productModel: 'Glass' } }),
      api.request('POST', '/api/transcriptions', { token: account.token, body: { recordTitle: 't', text: 'x', language: 'en-US', durationSeconds: 1 } }),
      api.request('POST', '/api/transcriptions', {
        token: account.token,
        body: { recordTitle: 't', text: 'x', language: 'en-US', durationSeconds: 1 },
        headers: { 'Idempotency-Key': randomUUID() },
      }),
      api.request('POST', '/api/behavior/events', { token: account.token, body: { eventType: 'translation_on', eventValue: 'true' } }),
      api.request('POST', '/api/behavior/events/batch', { token: account.token, body: { events: [{ eventType: 'translation_on', eventValue: 'true' }] } }),
      api.request('POST', '/api/behavior/login', { token: account.token, body: { location: 'Home' } }),
      api.request('GET', '/api/behavior/translation', { token: account.token }),
      api.request('GET', '/api/behavior/voice-provider', { token: account.token }),
      api.request('GET', '/api/behavior/language-choice', { token: account.token }),
      api.request('GET', '/api/users/me/export', { token: account.token }),
      api.request('GET', '/api/users/me/summary', { token: account.token }),
      api.request('PATCH', '/api/users/me', { token: account.token, body: { timeZone: 'Asia/Shanghai' } }),
      api.request('PUT', '/api/users/me/email', { token: account.token, body: { email: newEmail, verifyCode: latestCode(api, newEmail) } }),
      api.request('PUT', '/api/users/me/phone', { token: account.token, body: { phone: newPhone, verifyCode: latestCode(api, newPhone) } }),
      api.request('PUT', '/api/users/me/password', { token: account.token, body: { newPassword: 'violet-harbor-42-lantern' } }),
      api.request('GET', '/api/auth/sessions', { token: account.token }),
      api.request('DELETE', '/api/auth/sessions', { token: account.token }),
      api.request('DELETE', `/api/auth/sessions/${session.sessionId}`, { token: account.token }),
      api.request('POST', '/api/auth/passkeys/registration-options', { token: account.token }),
      api.request('POST', '/api/auth/passkeys', { token: account.token, body: { response: passkey, name: 'Phone' } }),
      api.request('GET', '/api/auth/passkeys', { token: account.token }),
      api.request('PATCH', `/api/auth/passkeys/${passkeyId}`, { token: account.token, body: { name: 'Phone' } }),
      api.request('DELETE', `/api/auth/passkeys/${passkeyId}`, { token: account.token }),
      api.request('GET', '/api/devices/A1', { token: account.token }),
      api.request('GET', '/api/transcriptions/changes', { token: account.token }),
      api.request('GET', '/api/users/me/identities', { token: account.token }),
      api.request('POST', '/api/users/me/identities/google', { token: account.token, body: { idToken: 'x', nonce: 'y' } }),
      api.request('DELETE', '/api/users/me/identities/google', { token: account.token }),
      api.request('POST', '/api/realtime/ticket', { token: account.token }),
      // The account is checked before the provider (this server configures none): 401, not 404.
      api.request('POST', '/api/speech/sessions', { token: account.token, body: { provider: 'tencent', language: 'en-US', clientSessionId: '00000000-0000-4000-8000-000000000001' } }),
      api.request('POST', '/api/speech/sessions/00000000-0000-4000-8000-000000000001/renew', { token: account.token, body: { elapsedSeconds: 1 } }),
      api.request('POST', '/api/speech/sessions/00000000-0000-4000-8000-000000000001/end', { token: account.token, body: { elapsedSeconds: 1 } }),
      api.request('GET', '/api/speech/quota', { token: account.token }),
      api.request('PUT', '/api/auth/sessions/current/push', { token: account.token, body: { platform: 'fcm', token: 'fcm-token' } }),
      api.request('DELETE', '/api/auth/sessions/current/push', { token: account.token }),
      api.request('DELETE', '/api/users/me', { token: account.token }),
      // Logout too, with or without a refresh token (issue 28: it answered 200).
      api.request('POST', '/api/auth/logout', { token: account.token }),
      api.request('POST', '/api/v1/auth/logout', { token: account.token, body: { refreshToken: 'not-one' } }),
    ];
    for (const attempt of await Promise.all(attempts)) {
      expect(attempt.status, JSON.stringify(attempt.body)).toBe(401);
      expect(attempt.body).toMatchObject({ code: 401 });
    }
    expect(await partition(account.userId)).toEqual([]);
  });

  it('lets the same e-mail sign up again as a new user who sees none of the old data', async () => {
    const email = uniqueEmail('again');
    const old = await populated(email);
    expect((await api.request('DELETE', '/api/users/me', { token: old.token })).status).toBe(200);
    api.clock.advance(61);
    const renewed = await signUp(email);
    expect(renewed.userId).not.toBe(old.userId);
    const me = await api.request('GET', '/api/users/me', { token: renewed.token });
    expect(me.body).toMatchObject({ userId: renewed.userId, email });
    for (const path of ['/api/devices', '/api/transcriptions', '/api/behavior/login', '/api/behavior/translation', '/api/behavior/voice-provider']) {
      expect((await api.request('GET', path, { token: renewed.token })).body).toEqual([]);
    }
    expect((await api.request('GET', '/api/transcriptions/usage', { token: renewed.token })).body).toMatchObject({ totalUsage: 0, dailyUsage: [] });
    expect((await api.request('GET', '/api/behavior/stats', { token: renewed.token })).body).toEqual({ loginCount: 0, events: [] });
    // The old serials can be bound by the new account like any free serial.
    expect((await bind(renewed, old.serials[1]!)).status).toBe(200);
  });

  it('frees a phone number too', async () => {
    const phone = uniquePhone();
    const old = await signUp(phone);
    expect((await api.request('DELETE', '/api/users/me', { token: old.token })).status).toBe(200);
    expect(await exists(keys.identity('phone', phone))).toBe(false);
    api.clock.advance(61);
    const renewed = await signUp(phone);
    expect(renewed.userId).not.toBe(old.userId);
  });

  it('deletes an account whose data spans several query pages and many batches', async () => {
    const account = await signUp(uniqueEmail('large'));
    // Four records of about 300 KB: the partition no longer fits one 1 MB query page.
    for (let index = 0; index < 4; index++) await saveRecord(api, account, { text: '字'.repeat(100_000) });
    for (let index = 0; index < 60; index++) await postEvent(api, account, 'ambient_sound', index % 2 ? 'enabled' : 'disabled');
    expect((await api.request('DELETE', '/api/users/me', { token: account.token })).status).toBe(200);
    expect(await partition(account.userId)).toEqual([]);
  });
});

describe('a token from before a password reset', () => {
  it('can no longer read or write, and its writes leave nothing behind', async () => {
    const email = uniqueEmail('reset');
    const account = await signUp(email);
    await saveRecord(api, account);
    expect((await api.request('GET', '/api/transcriptions', { token: account.token })).status).toBe(200);
    api.clock.advance(61);
    await api.request('POST', '/api/verify-code/send', { body: { type: 'email', target: email } });
    const reset = await api.request('POST', '/api/auth/password/reset', {
      body: { target: email, verifyCode: latestCode(api, email), newPassword: 'a fresh passphrase 2031' },
    });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    const before = await partition(account.userId);
    for (const attempt of await Promise.all([
      api.request('GET', '/api/transcriptions', { token: account.token }),
      api.request('POST', '/api/transcriptions', { token: account.token, body: { recordTitle: 't', text: 'x', language: 'en-US', durationSeconds: 1 } }),
      api.request('POST', '/api/behavior/login', { token: account.token, body: { location: 'Home' } }),
      bind(account, nextSn()),
    ])) {
      expect(attempt.status).toBe(401);
    }
    expect(await partition(account.userId)).toEqual(before);
  });
});

describe('an interrupted deletion', () => {
  it('leaves a purge marker that a later run uses to finish the job', async () => {
    const account = await populated(uniqueEmail('interrupted'));
    const user = (await findUserById(api.db, account.userId))!;
    // The account ended, then the process died before the purge.
    await endAccount(api.db, user, user, new Date().toISOString());
    expect((await api.request('GET', '/api/transcriptions', { token: account.token })).status).toBe(401);
    expect((await partition(account.userId)).length).toBeGreaterThan(0);
    expect(await exists(keys.pendingPurge(account.userId))).toBe(true);

    // The scheduled job (functions/jobs/resume-account-purges.ts) finishes it.
    expect((await resumeAccountPurgesJob.withContext(api.context)()).purged).toBeGreaterThanOrEqual(1);
    expect(await partition(account.userId)).toEqual([]);
    for (const sn of account.serials) expect(await exists(keys.deviceOwner(sn))).toBe(false);
    expect(await exists(keys.pendingPurge(account.userId))).toBe(false);
    // Running it again is harmless.
    await purgeAccountData(api.db, account.userId);
    expect((await resumePendingPurges(api.db)).purged).not.toContain(account.userId);
  });

  it('never frees a serial that meanwhile belongs to someone else', async () => {
    const account = await populated(uniqueEmail('halfway'));
    const user = (await findUserById(api.db, account.userId))!;
    await endAccount(api.db, user, user, new Date().toISOString());
    // A purge that released the first serial and died; someone else bound it since.
    await api.db.client.send(new DeleteCommand({ TableName: api.db.tableName, Key: keys.deviceOwner(account.serials[0]!) }));
    const newcomer = await signUp(uniqueEmail('newcomer'));
    expect((await bind(newcomer, account.serials[0]!)).status).toBe(200);
    await resumePendingPurges(api.db);
    const devices = (await walkList(api, '/api/devices', newcomer, 10)).flatMap((page) => page.body);
    expect(devices.map((device: any) => device.sn)).toEqual([account.serials[0]]);
    expect(await exists(keys.deviceOwner(account.serials[0]!))).toBe(true);
    expect(await partition(account.userId)).toEqual([]);
  });
});
