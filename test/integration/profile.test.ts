import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys';
import { issueToken } from '../../shared/identity/tokens';
import { deriveKeys } from '../../shared/ports/secrets';
import { latestCode, startLocalApi, uniqueEmail, uniquePhone } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { expectError, sessionHelpers } from '../support/sessions';

/**
 * The profile a person edits (issue 14): time zone and locale, linking and changing the e-mail and
 * phone with a code, and setting or changing the password from a session.
 */
let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi({ CODE_RESEND_SECONDS: '1', CODE_DAILY_LIMIT: '1000' });
});
afterAll(() => api?.close());
afterEach(() => api.clock.reset());

const helpers = () => sessionHelpers(api);
const me = (token: string) => api.request('GET', '/api/users/me', { token });
const patchMe = (token: string, body: unknown) => api.request('PATCH', '/api/users/me', { token, body });

async function codeFor(target: string, headers?: Record<string, string>) {
  api.clock.advance(2);
  const sent = await api.request('POST', '/api/verify-code/send', { body: { type: target.includes('@') ? 'email' : 'sms', target }, headers });
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  return latestCode(api, target);
}

/** A code sign-in by phone or e-mail; returns what verify answers. */
async function signInAs(target: string) {
  const verified = await api.request('POST', '/api/verify-code/verify', { body: { target, verifyCode: await codeFor(target) } });
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  return verified.body as { token: string; refreshToken: string; userId: number };
}

const wrongCode = (code: string) => (code === '000000' ? '111111' : '000000');

describe('time zone and locale', () => {
  it('start as null, can be set and cleared, and move updatedAt', async () => {
    const { token } = await signInAs(uniqueEmail('settings'));
    const before = await me(token);
    expect(before.body).toMatchObject({ timeZone: null, locale: null });
    api.clock.advance(60);
    for (const timeZone of ['Asia/Kolkata', 'America/St_Johns', 'Asia/Kathmandu']) {
      const patched = await patchMe(token, { timeZone });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ timeZone, locale: null, userId: before.body.userId, email: before.body.email });
    }
    const withLocale = await patchMe(token, { locale: 'zh-CN' });
    expect(withLocale.body).toMatchObject({ timeZone: 'Asia/Kathmandu', locale: 'zh-CN' });
    expect(withLocale.body.updatedAt > before.body.updatedAt).toBe(true);
    expect((await me(token)).body).toEqual(withLocale.body);
    expect((await patchMe(token, { timeZone: null, locale: null })).body).toMatchObject({ timeZone: null, locale: null });
    // The case of a zone is ICU's.
    expect((await patchMe(token, { timeZone: 'asia/shanghai' })).body.timeZone).toBe('Asia/Shanghai');
  });

  it('refuse an unknown zone, an offset, a bad locale and an empty patch with VALIDATION_FAILED, and change nothing', async () => {
    const { token } = await signInAs(uniqueEmail('bad-settings'));
    await patchMe(token, { timeZone: 'Asia/Shanghai' });
    for (const [body, path] of [
      [{ timeZone: 'Mars/Olympus' }, 'body.timeZone'],
      [{ timeZone: 'UTC+8' }, 'body.timeZone'],
      [{ timeZone: '+08:00' }, 'body.timeZone'],
      [{ timeZone: 8 }, 'body.timeZone'],
      [{ locale: 'chinese' }, 'body.locale'],
      [{}, 'body'],
    ] as const) {
      const response = await patchMe(token, body);
      expectError(response, 400, 'VALIDATION_FAILED');
      expect(response.body.details.map((detail: { path: string }) => detail.path)).toContain(path);
    }
    expect((await me(token)).body.timeZone).toBe('Asia/Shanghai');
  });

  it('makes the locale the language of codes sent to the account when the request names none', async () => {
    const email = uniqueEmail('locale');
    const { token } = await signInAs(email);
    await patchMe(token, { locale: 'zh-CN' });
    await codeFor(email, { 'Accept-Language': '*' });
    expect(api.outbox.list(email)[0]!.locale).toBe('zh-CN');
    // The request's own language still wins.
    await codeFor(email, { 'Accept-Language': 'en-US' });
    expect(api.outbox.list(email)[0]!.locale).toBe('en');
  });
});

describe('linking and changing the e-mail and phone', () => {
  it('links an e-mail to an account made by phone, signs in with it, and frees the old one on a change', async () => {
    const phone = uniquePhone();
    const { token, userId } = await signInAs(phone);
    const email = uniqueEmail('linked');
    const linked = await api.request('PUT', '/api/users/me/email', { token, body: { email, verifyCode: await codeFor(email) } });
    expect(linked.status, JSON.stringify(linked.body)).toBe(200);
    expect(linked.body).toMatchObject({ userId, phone, email });
    expect((await signInAs(email)).userId).toBe(userId);

    const next = uniqueEmail('changed');
    const changed = await api.request('PUT', '/api/v1/users/me/email', { token, body: { email: next, verifyCode: await codeFor(next) } });
    expect(changed.body).toMatchObject({ userId, email: next });
    expect((await signInAs(next)).userId).toBe(userId);
    // The old address is free: signing in with it makes a new account.
    expect((await signInAs(email)).userId).not.toBe(userId);
  });

  it('changes the phone the same way', async () => {
    const { token, userId } = await signInAs(uniqueEmail('phone-change'));
    const phone = uniquePhone();
    const linked = await api.request('PUT', '/api/users/me/phone', { token, body: { phone, verifyCode: await codeFor(phone) } });
    expect(linked.body).toMatchObject({ userId, phone });
    const next = uniquePhone();
    expect((await api.request('PUT', '/api/users/me/phone', { token, body: { phone: next, verifyCode: await codeFor(next) } })).body.phone).toBe(next);
    expect((await signInAs(next)).userId).toBe(userId);
    expect((await signInAs(phone)).userId).not.toBe(userId);
  });

  it('refuses a target of another account with ACCOUNT_EXISTS, and a failed change keeps the old e-mail working', async () => {
    const mine = uniqueEmail('mine');
    const theirs = uniqueEmail('theirs');
    const { token, userId } = await signInAs(mine);
    await signInAs(theirs);
    const refused = await api.request('PUT', '/api/users/me/email', { token, body: { email: theirs, verifyCode: await codeFor(theirs) } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 1, error: 'ACCOUNT_EXISTS' });
    const target = uniqueEmail('wanted');
    const code = await codeFor(target);
    const wrong = await api.request('PUT', '/api/users/me/email', { token, body: { email: target, verifyCode: wrongCode(code) } });
    expect(wrong.body).toMatchObject({ code: 1, error: 'CODE_INVALID' });
    expect((await me(token)).body.email).toBe(mine);
    expect((await signInAs(mine)).userId).toBe(userId);
    const marker = await api.db.client.send(new GetCommand({ TableName: api.db.tableName, Key: keys.identity('email', target), ConsistentRead: true }));
    expect(marker.Item).toBeUndefined();
  });

  it('lets one of two accounts racing for one target win; the other gets ACCOUNT_EXISTS', async () => {
    const a = await signInAs(uniqueEmail('racer-a'));
    const b = await signInAs(uniqueEmail('racer-b'));
    const target = uniqueEmail('contested');
    const verifyCode = await codeFor(target);
    const answers = await Promise.all(
      [a, b].map((account) => api.request('PUT', '/api/users/me/email', { token: account.token, body: { email: target, verifyCode } })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    const loser = answers.find((answer) => answer.status === 400)!;
    expect(loser.body).toMatchObject({ code: 1, error: 'ACCOUNT_EXISTS' });
    const winner = answers.find((answer) => answer.status === 200)!;
    const marker = await api.db.client.send(new GetCommand({ TableName: api.db.tableName, Key: keys.identity('email', target), ConsistentRead: true }));
    expect(marker.Item?.userId).toBe(winner.body.userId);
  });

  it('tells the holder of a code spent by another account ACCOUNT_EXISTS, but not someone guessing at it', async () => {
    const a = await signInAs(uniqueEmail('first'));
    const b = await signInAs(uniqueEmail('second'));
    const target = uniqueEmail('claimed');
    const verifyCode = await codeFor(target);
    expect((await api.request('PUT', '/api/users/me/email', { token: a.token, body: { email: target, verifyCode } })).status).toBe(200);
    // Later, not racing: the same (right, used) code answers what happened to the target.
    expect((await api.request('PUT', '/api/users/me/email', { token: b.token, body: { email: target, verifyCode } })).body.error).toBe('ACCOUNT_EXISTS');
    // The owner's own repeat is just a used code.
    expect((await api.request('PUT', '/api/users/me/email', { token: a.token, body: { email: target, verifyCode } })).body.error).toBe('CODE_INVALID');
    // Wrong guesses at the used code count toward the five tries; after them, even the right one tells nothing.
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await api.request('PUT', '/api/users/me/email', { token: b.token, body: { email: target, verifyCode: wrongCode(verifyCode) } })).body.error).toBe('CODE_INVALID');
    }
    expect((await api.request('PUT', '/api/users/me/email', { token: b.token, body: { email: target, verifyCode } })).body.error).toBe('CODE_INVALID');
  });

  it('applies the code rules of sign-in: five wrong tries void the code, and a code works once', async () => {
    const { token } = await signInAs(uniqueEmail('rules'));
    const target = uniqueEmail('rules-target');
    const code = await codeFor(target);
    for (let attempt = 1; attempt <= 5; attempt++) {
      const response = await api.request('PUT', '/api/users/me/email', { token, body: { email: target, verifyCode: wrongCode(code) } });
      expect(response.body.error).toBe(attempt < 5 ? 'CODE_INVALID' : 'CODE_ATTEMPTS_EXCEEDED');
    }
    expect((await api.request('PUT', '/api/users/me/email', { token, body: { email: target, verifyCode: code } })).body.error).toBe('CODE_ATTEMPTS_EXCEEDED');
    const fresh = await codeFor(target);
    expect((await api.request('PUT', '/api/users/me/email', { token, body: { email: target, verifyCode: fresh } })).status).toBe(200);
    expect((await api.request('PUT', '/api/users/me/email', { token, body: { email: target, verifyCode: fresh } })).body.error).toBe('CODE_INVALID');
  });
});

describe('setting and changing the password from a session', () => {
  const password = 'violet-harbor-42-lantern';
  const next = 'quiet-meadow-17-compass';

  it('lets an account made by code set its first password; other sessions end, the caller stays', async () => {
    const email = uniqueEmail('first-password');
    const other = await signInAs(email);
    const caller = await signInAs(email);
    const response = await api.request('PUT', '/api/users/me/password', { token: caller.token, body: { newPassword: password } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toEqual({ code: 0, message: 'Password changed.' });
    await helpers().expectTokenWorks(caller.token);
    expect((await helpers().refresh(caller.refreshToken)).status).toBe(200);
    await helpers().expectTokenEnded(other.token);
    expectError(await helpers().refresh(other.refreshToken), 401, 'SESSION_ENDED');
    expect((await api.request('POST', '/api/auth/login', { body: { email, password } })).status).toBe(200);
  });

  it('wants the current password once there is one, counts wrong ones toward the login lock, and then changes it', async () => {
    const email = uniqueEmail('change-password');
    const caller = await signInAs(email);
    await api.request('PUT', '/api/users/me/password', { token: caller.token, body: { newPassword: password } });
    expectError(await api.request('PUT', '/api/users/me/password', { token: caller.token, body: { newPassword: next } }), 400, 'VALIDATION_FAILED');
    for (let attempt = 1; attempt <= 5; attempt++) {
      const wrong = await api.request('PUT', '/api/users/me/password', { token: caller.token, body: { currentPassword: 'not-the-password', newPassword: next } });
      expect(wrong.body).toMatchObject({ code: 1, error: 'INVALID_CREDENTIALS' });
    }
    // Locked, for this operation and for password login alike, even with the right password.
    const locked = await api.request('PUT', '/api/users/me/password', { token: caller.token, body: { currentPassword: password, newPassword: next } });
    expect(locked.body).toMatchObject({ code: 1, error: 'LOGIN_LOCKED' });
    expect((await api.request('POST', '/api/auth/login', { body: { email, password } })).body.error).toBe('LOGIN_LOCKED');
    api.clock.advance(15 * 60 + 1);
    const changed = await api.request('PUT', '/api/users/me/password', { token: caller.token, body: { currentPassword: password, newPassword: next } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await api.request('POST', '/api/auth/login', { body: { email, password } })).body.error).toBe('INVALID_CREDENTIALS');
    expect((await api.request('POST', '/api/auth/login', { body: { email, password: next } })).status).toBe(200);
    await helpers().expectTokenWorks(caller.token);
  });

  it('answers a token from before sessions with fresh tokens, since its own had to end', async () => {
    const email = uniqueEmail('legacy-password');
    const signed = await signInAs(email);
    const profile = await api.db.client.send(new GetCommand({ TableName: api.db.tableName, Key: keys.user(signed.userId), ConsistentRead: true }));
    const { token: legacy } = await issueToken(deriveKeys(api.rootSecret).tokenSigningKey, { userId: signed.userId, tokenVersion: profile.Item!.tokenVersion }, api.clock.now(), {
      issuer: api.config.JWT_ISSUER,
      audience: api.config.JWT_AUDIENCE,
      lifetimeMs: api.config.TOKEN_TTL_MS,
    });
    const response = await api.request('PUT', '/api/users/me/password', { token: legacy, body: { newPassword: password } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({ code: 0, token: expect.any(String), refreshToken: expect.any(String), expiresIn: 86_400 });
    await helpers().expectTokenEnded(legacy);
    await helpers().expectTokenEnded(signed.token);
    await helpers().expectTokenWorks(response.body.token);
  });

  it('refuses a common new password', async () => {
    const { token } = await signInAs(uniqueEmail('common'));
    expectError(await api.request('PUT', '/api/users/me/password', { token, body: { newPassword: 'password123' } }), 400, 'VALIDATION_FAILED');
  });
});
