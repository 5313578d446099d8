import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys';
import { issueToken } from '../../shared/identity/tokens';
import { deriveKeys } from '../../shared/ports/secrets';
import { latestCode, startLocalApi, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { expectError, sessionHelpers } from '../support/sessions';
import type { Signed } from '../support/sessions';

/**
 * Sessions (issue 13) over HTTP against the local server and DynamoDB Local: rotating refresh
 * tokens with a grace window, reuse detection, the list of sessions and ending them, the cap of
 * 20, idle and absolute expiry, and what a password reset, an account deletion and logout do.
 */
let api: LocalApi;
beforeAll(async () => {
  // Codes every second, as many as needed: the tests sign the same person in many times.
  api = await startLocalApi({ CODE_RESEND_SECONDS: '1', CODE_DAILY_LIMIT: '1000' });
});
afterAll(() => api?.close());
afterEach(() => api.clock.reset());

// On this file's one server (a second server in the same process replaces the first's settings:
// sessions-settings.test.ts has the tests that need other settings).
const signIn = (target: string, options?: Parameters<ReturnType<typeof sessionHelpers>['signIn']>[1]) => sessionHelpers(api).signIn(target, options);
const refresh = (refreshToken: unknown, prefix?: string) => sessionHelpers(api).refresh(refreshToken, prefix);
const sessions = (token: string) => sessionHelpers(api).sessions(token);
const write = (token: string) => sessionHelpers(api).write(token);
const expectTokenEnded = (token: string) => sessionHelpers(api).expectTokenEnded(token);
const expectTokenWorks = (token: string) => sessionHelpers(api).expectTokenWorks(token);

async function sessionItems(userId: number) {
  const result = await api.db.client.send(
    new QueryCommand({
      TableName: api.db.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': `USER#${userId}`, ':prefix': 'SESSION#' },
      ConsistentRead: true,
    }),
  );
  return result.Items ?? [];
}

describe('signing in', () => {
  it('answers a refresh token and expiresIn beside the seed fields, and stores no token', async () => {
    const signed = await signIn(uniqueEmail('fields'));
    expect(signed.expiresIn).toBe(86_400);
    expect(signed.refreshToken).toMatch(/^\d+\.[\w-]{22}\.0\.[\w-]{43}$/);
    const [item] = await sessionItems(signed.userId);
    // Neither the refresh token nor its secret part is stored anywhere in the item.
    const secretPart = signed.refreshToken.split('.')[3]!;
    expect(JSON.stringify(item)).not.toContain(secretPart);
    expect(item).toMatchObject({ generation: 0, clientName: 'node' });
  });

  it('leaves no session behind when the code is wrong', async () => {
    const target = uniqueEmail('wrong-code');
    const first = await signIn(target);
    api.clock.advance(2);
    await api.request('POST', '/api/verify-code/send', { body: { type: 'email', target } });
    const wrong = latestCode(api, target) === '000000' ? '111111' : '000000';
    const refused = await api.request('POST', '/api/verify-code/verify', { body: { target, verifyCode: wrong } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 1, error: 'CODE_INVALID' });
    expect(await sessionItems(first.userId)).toHaveLength(1);
  });
});

describe('refresh', () => {
  it('rotates: a new access token and a new refresh token, the old refresh token spent, at /api/v1 too', async () => {
    const signed = await signIn(uniqueEmail('rotate'));
    const first = await refresh(signed.refreshToken);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual({ token: expect.any(String), refreshToken: expect.any(String), expiresIn: 86_400, userId: signed.userId });
    expect(first.body.refreshToken).not.toBe(signed.refreshToken);
    await expectTokenWorks(first.body.token);
    const second = await refresh(first.body.refreshToken, '/api/v1');
    expect(second.status).toBe(200);
    expect(second.body.refreshToken).not.toBe(first.body.refreshToken);
    // The access token of the sign-in is still valid until it expires: rotation spends refresh tokens only.
    await expectTokenWorks(signed.token);
  });

  it('answers the same next token to the spent one within the grace window, and ends the session after it', async () => {
    const signed = await signIn(uniqueEmail('grace'));
    const other = await signIn(uniqueEmail('bystander'));
    const first = await refresh(signed.refreshToken);
    api.clock.advance(29);
    const retried = await refresh(signed.refreshToken);
    expect(retried.status).toBe(200);
    expect(retried.body.refreshToken).toBe(first.body.refreshToken);
    await expectTokenWorks(retried.body.token);

    api.clock.advance(2); // 31 s after the rotation: outside the 30 s window.
    const replayed = await refresh(signed.refreshToken);
    expectError(replayed, 401, 'SESSION_ENDED');
    expect(replayed.body.message).toBe('The session has ended. Sign in again.');
    // The whole session ended: its current refresh token and every access token of it.
    expectError(await refresh(first.body.refreshToken), 401, 'SESSION_ENDED');
    await expectTokenEnded(signed.token);
    await expectTokenEnded(first.body.token);
    await expectTokenEnded(retried.body.token);
    await expectTokenWorks(other.token);
  });

  it('takes a token two generations old as reuse, even inside the window', async () => {
    const signed = await signIn(uniqueEmail('older'));
    const first = await refresh(signed.refreshToken);
    const second = await refresh(first.body.refreshToken);
    expect(second.status).toBe(200);
    expectError(await refresh(signed.refreshToken), 401, 'SESSION_ENDED');
    await expectTokenEnded(second.body.token);
  });

  it('gives 20 parallel refreshes with one token one and the same new refresh token', async () => {
    const signed = await signIn(uniqueEmail('parallel'));
    const answers = await Promise.all(Array.from({ length: 20 }, () => refresh(signed.refreshToken)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((answer) => answer.body.refreshToken)).size).toBe(1);
    const next = await refresh(answers[0]!.body.refreshToken);
    expect(next.status).toBe(200);
    expect((await sessionItems(signed.userId))[0]).toMatchObject({ generation: 2 });
  });

  it('never leaves a live token behind when a refresh races the end of its session', async () => {
    for (let round = 0; round < 6; round++) {
      const signed = await signIn(uniqueEmail(`race${round}`));
      const keeper = await signIn(uniqueEmail(`keeper${round}`));
      const { body: list } = await sessions(signed.token);
      const [refreshed, ended] = await Promise.all([
        refresh(signed.refreshToken),
        api.request('DELETE', `/api/auth/sessions/${list[0].sessionId}`, { token: signed.token }),
      ]);
      expect([200, 401]).toContain(refreshed.status);
      expect(ended.status).toBe(200);
      await expectTokenEnded(signed.token);
      if (refreshed.status === 200) {
        await expectTokenEnded(refreshed.body.token);
        expectError(await refresh(refreshed.body.refreshToken), 401, 'SESSION_ENDED');
      }
      expect(await sessionItems(signed.userId)).toEqual([]);
      await expectTokenWorks(keeper.token);
    }
  });

  it('refuses malformed and forged tokens with REFRESH_TOKEN_INVALID, and a forgery ends nothing', async () => {
    const signed = await signIn(uniqueEmail('forged'));
    for (const bad of ['', 'nonsense', `${signed.refreshToken}x`, 'x'.repeat(5000)]) expectError(await refresh(bad), 401, 'REFRESH_TOKEN_INVALID');
    const [userId, sessionId, generation, secret] = signed.refreshToken.split('.') as [string, string, string, string];
    const flipped = `${secret[0] === 'A' ? 'B' : 'A'}${secret.slice(1)}`;
    expectError(await refresh(`${userId}.${sessionId}.${generation}.${flipped}`), 401, 'REFRESH_TOKEN_INVALID');
    expectError(await refresh(`${userId}.${sessionId}.7.${secret}`), 401, 'REFRESH_TOKEN_INVALID');
    // Someone else's user id with this session's secret: no such session there.
    expectError(await refresh(`${Number(userId) + 100000}.${sessionId}.${generation}.${secret}`), 401, 'SESSION_ENDED');
    expect((await refresh(signed.refreshToken)).status).toBe(200);
  });

  it('refuses a body without a string refreshToken with VALIDATION_FAILED', async () => {
    expectError(await refresh(42), 400, 'VALIDATION_FAILED');
    expectError(await api.request('POST', '/api/auth/token/refresh', { body: {} }), 400, 'VALIDATION_FAILED');
  });
});

describe('the list of sessions', () => {
  it('shows every live session newest first, names them, and marks the caller’s', async () => {
    const target = uniqueEmail('list');
    const phone = await signIn(target, { clientName: 'Pixel 8 · Captions 2.3' });
    const browser = await signIn(target, { userAgent: `Mozilla/5.0 ${'x'.repeat(80)}` });
    const last = await signIn(target);
    const listed = await sessions(browser.token);
    expect(listed.status).toBe(200);
    expect(listed.body.map((session: { clientName: string }) => session.clientName)).toEqual([
      'node',
      `Mozilla/5.0 ${'x'.repeat(52)}`,
      'Pixel 8 · Captions 2.3',
    ]);
    expect(listed.body.map((session: { current: boolean }) => session.current)).toEqual([false, true, false]);
    expect(Object.keys(listed.body[0]).sort()).toEqual(['clientName', 'createdAt', 'current', 'lastUsedAt', 'sessionId']);

    // A refresh moves lastUsedAt, not the order.
    api.clock.advance(60);
    const refreshed = await refresh(phone.refreshToken);
    const after = (await sessions(last.token)).body;
    expect(after[2].lastUsedAt > after[2].createdAt).toBe(true);
    expect(after.map((session: { current: boolean }) => session.current)).toEqual([true, false, false]);
    expect((await sessions(refreshed.body.token)).body[2].current).toBe(true);
  });

  it('names a session "unknown" without clientName or User-Agent', async () => {
    const target = uniqueEmail('unknown');
    api.clock.advance(2);
    await api.request('POST', '/api/verify-code/send', { body: { type: 'email', target } });
    // fetch always sends a User-Agent; an empty one stands for none.
    const verified = await api.request('POST', '/api/verify-code/verify', {
      body: { target, verifyCode: latestCode(api, target) },
      headers: { 'User-Agent': '' },
    });
    expect((await sessions(verified.body.token)).body[0].clientName).toBe('unknown');
  });
});

describe('ending sessions', () => {
  it('ends one session: its refresh token and access tokens stop at once; the others go on', async () => {
    const target = uniqueEmail('end-one');
    const lost = await signIn(target, { clientName: 'Lost phone' });
    const kept = await signIn(target, { clientName: 'Tablet' });
    const lostId = (await sessions(kept.token)).body.find((session: { clientName: string }) => session.clientName === 'Lost phone').sessionId;
    const ended = await api.request('DELETE', `/api/auth/sessions/${lostId}`, { token: kept.token });
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({ code: 0, message: expect.any(String) });
    await expectTokenEnded(lost.token);
    expectError(await refresh(lost.refreshToken), 401, 'SESSION_ENDED');
    await expectTokenWorks(kept.token);
    expect((await sessions(kept.token)).body).toHaveLength(1);
    // Ended already or unknown: 404; not an id at all: 400.
    expectError(await api.request('DELETE', `/api/auth/sessions/${lostId}`, { token: kept.token }), 404, 'NOT_FOUND');
    expectError(await api.request('DELETE', '/api/v1/auth/sessions/AAAAAAAAAAAAAAAAAAAAAA', { token: kept.token }), 404, 'NOT_FOUND');
    expectError(await api.request('DELETE', `/api/auth/sessions/${'x'.repeat(2000)}`, { token: kept.token }), 400, 'VALIDATION_FAILED');
  });

  it('answers 404 for another account’s session and leaves it alone', async () => {
    const mine = await signIn(uniqueEmail('mine'));
    const theirs = await signIn(uniqueEmail('theirs'));
    const theirId = (await sessions(theirs.token)).body[0].sessionId;
    expectError(await api.request('DELETE', `/api/auth/sessions/${theirId}`, { token: mine.token }), 404, 'NOT_FOUND');
    await expectTokenWorks(theirs.token);
    expect((await refresh(theirs.refreshToken)).status).toBe(200);
  });

  it('signs out the other devices, keeping the caller, and says how many ended', async () => {
    const target = uniqueEmail('others');
    const a = await signIn(target);
    const b = await signIn(target);
    const me = await signIn(target);
    const response = await api.request('DELETE', '/api/v1/auth/sessions', { token: me.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ code: 0, message: expect.any(String), ended: 2 });
    for (const gone of [a, b]) {
      await expectTokenEnded(gone.token);
      expectError(await refresh(gone.refreshToken), 401, 'SESSION_ENDED');
    }
    await expectTokenWorks(me.token);
    expect((await sessions(me.token)).body.map((session: { current: boolean }) => session.current)).toEqual([true]);
    expect((await api.request('DELETE', '/api/auth/sessions', { token: me.token })).body.ended).toBe(0);
    // An ended session's token cannot end the others.
    await expectTokenEnded(a.token);
    expect((await api.request('DELETE', '/api/auth/sessions', { token: a.token })).status).toBe(401);
  });

  it('keeps at most 20 live sessions: the 21st sign-in ends the least recently used', async () => {
    const target = uniqueEmail('cap');
    const signed: Signed[] = [];
    for (let index = 0; index < 20; index++) signed.push(await signIn(target, { clientName: `device ${index}` }));
    // Device 0 refreshes, so device 1 becomes the least recently used.
    api.clock.advance(5);
    const refreshed = await refresh(signed[0]!.refreshToken);
    expect(refreshed.status).toBe(200);
    const newest = await signIn(target, { clientName: 'device 20' });
    const listed = (await sessions(newest.token)).body as { clientName: string }[];
    expect(listed).toHaveLength(20);
    expect(listed.map((session) => session.clientName)).not.toContain('device 1');
    expect(listed.map((session) => session.clientName)).toContain('device 0');
    await expectTokenEnded(signed[1]!.token);
    expectError(await refresh(signed[1]!.refreshToken), 401, 'SESSION_ENDED');
    await expectTokenWorks(refreshed.body.token);
    await expectTokenWorks(signed[2]!.token);
    expect(await sessionItems(newest.userId)).toHaveLength(20);
  });

  it('holds the cap when sign-ins race', async () => {
    const target = uniqueEmail('cap-race');
    const password = 'violet-harbor-42-lantern';
    api.clock.advance(2);
    await api.request('POST', '/api/verify-code/send', { body: { type: 'email', target } });
    const registered = await api.request('POST', '/api/auth/register', { body: { email: target, verifyCode: latestCode(api, target), password } });
    expect(registered.status).toBe(200);
    for (let index = 0; index < 17; index++) await signIn(target);
    api.clock.advance(5);
    // Five: the login lock counts attempts before scrypt runs, so a sixth parallel one is refused.
    const logins = await Promise.all(
      Array.from({ length: 5 }, () => api.request('POST', '/api/auth/login', { body: { email: target, password, clientName: 'raced' } })),
    );
    expect(logins.map((login) => login.status), JSON.stringify(logins.map((login) => login.body))).toEqual(Array(5).fill(200));
    const listed = (await sessions(logins[4]!.body.token)).body as { clientName: string }[];
    expect(listed).toHaveLength(20);
    // All five racing sign-ins live; two of the older sessions made room.
    expect(listed.filter((session) => session.clientName === 'raced')).toHaveLength(5);
    for (const login of logins) await expectTokenWorks(login.body.token);
    expect(await sessionItems(registered.body.userId)).toHaveLength(20);
  });
});

describe('logout', () => {
  it('without a body answers as the seed says and changes nothing', async () => {
    const signed = await signIn(uniqueEmail('logout-plain'));
    const response = await api.request('POST', '/api/auth/logout', { token: signed.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ code: 0, message: 'Logged out.' });
    await expectTokenWorks(signed.token);
    expect((await refresh(signed.refreshToken)).status).toBe(200);
  });

  it('with the refresh token ends that session at once', async () => {
    const signed = await signIn(uniqueEmail('logout-session'));
    const response = await api.request('POST', '/api/v1/auth/logout', { token: signed.token, body: { refreshToken: signed.refreshToken } });
    expect(response.body).toEqual({ code: 0, message: 'Logged out.' });
    await expectTokenEnded(signed.token);
    expectError(await refresh(signed.refreshToken), 401, 'SESSION_ENDED');
  });

  it('with someone else’s or a made-up refresh token answers the same and ends nothing', async () => {
    const mine = await signIn(uniqueEmail('logout-mine'));
    const theirs = await signIn(uniqueEmail('logout-theirs'));
    for (const refreshToken of [theirs.refreshToken, 'made-up']) {
      const response = await api.request('POST', '/api/auth/logout', { token: mine.token, body: { refreshToken } });
      expect(response.body).toEqual({ code: 0, message: 'Logged out.' });
    }
    expect((await refresh(theirs.refreshToken)).status).toBe(200);
    await expectTokenWorks(mine.token);
    expectError(await api.request('POST', '/api/auth/logout', { token: mine.token, body: { refreshToken: 7 } }), 400, 'VALIDATION_FAILED');
  });
});

describe('what ends every session', () => {
  it('a password reset', async () => {
    const target = uniqueEmail('reset');
    const a = await signIn(target);
    const b = await signIn(target);
    api.clock.advance(2);
    await api.request('POST', '/api/verify-code/send', { body: { type: 'email', target } });
    const reset = await api.request('POST', '/api/auth/password/reset', {
      body: { target, verifyCode: latestCode(api, target), newPassword: 'violet-harbor-42-lantern' },
    });
    expect(reset.status).toBe(200);
    for (const ended of [a, b]) {
      await expectTokenEnded(ended.token);
      expectError(await refresh(ended.refreshToken), 401, 'SESSION_ENDED');
    }
    const login = await api.request('POST', '/api/auth/login', { body: { email: target, password: 'violet-harbor-42-lantern' } });
    expect((await sessions(login.body.token)).body).toHaveLength(1);
    // The sign-in after the reset cleared what was left of the ended sessions.
    expect(await sessionItems(a.userId)).toHaveLength(1);
  });

  it('deleting the account', async () => {
    const target = uniqueEmail('delete');
    const a = await signIn(target);
    const b = await signIn(target);
    expect((await api.request('DELETE', '/api/users/me', { token: a.token })).status).toBe(200);
    expectError(await refresh(b.refreshToken), 401, 'SESSION_ENDED');
    expect(await sessionItems(a.userId)).toEqual([]);
  });
});

describe('expiry', () => {
  it('ends a session idle for SESSION_IDLE_DAYS', async () => {
    const signed = await signIn(uniqueEmail('idle'));
    api.clock.advance(29 * 86_400);
    const refreshed = await refresh(signed.refreshToken);
    expect(refreshed.status).toBe(200);
    api.clock.advance(30 * 86_400 + 60);
    expectError(await refresh(refreshed.body.refreshToken), 401, 'REFRESH_TOKEN_EXPIRED');
    expectError(await refresh(refreshed.body.refreshToken), 401, 'SESSION_ENDED');
  });
});

describe('the authorizer', () => {
  it('still accepts an access token from before sessions (no sid) while its account is current', async () => {
    const signed = await signIn(uniqueEmail('legacy'));
    const profile = await api.db.client.send(new GetCommand({ TableName: api.db.tableName, Key: keys.user(signed.userId) }));
    const { token } = await issueToken(deriveKeys(api.rootSecret).tokenSigningKey, { userId: signed.userId, tokenVersion: profile.Item!.tokenVersion }, api.clock.now(), {
      issuer: api.config.JWT_ISSUER,
      audience: api.config.JWT_AUDIENCE,
      lifetimeMs: api.config.TOKEN_TTL_MS,
    });
    await expectTokenWorks(token);
    expect((await write(token)).status).toBe(200);
  });
});
