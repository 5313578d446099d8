import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { keys } from '../../shared/db/keys';
import { hashPassword } from '../../shared/identity/passwords';
import { latestCode, signIn, startLocalApi, uniqueEmail, uniquePhone } from '../support/local-api';
import type { ApiResponse, LocalApi } from '../support/local-api';

/**
 * Accounts over HTTP against the local server (seed 4.3-4.6; contract sections 2-4): registration,
 * password login, logout, password reset and the current user. The server hashes at the test
 * servers' lower scrypt cost (test/support/local-api.ts) but for the rehash test, which is about it.
 */
let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api?.close());
afterEach(() => api.clock.reset());

const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;

const account = (target: string) => (target.includes('@') ? { email: target } : { phone: target });

async function sendCode(target: string, prefix = '/api'): Promise<string> {
  const response = await api.request('POST', `${prefix}/verify-code/send`, { body: { type: target.includes('@') ? 'email' : 'sms', target } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return latestCode(api, target);
}

const register = async (target: string, password: string, prefix = '/api') =>
  api.request('POST', `${prefix}/auth/register`, { body: { ...account(target), verifyCode: await sendCode(target, prefix), password } });
const login = (target: string, password: string, prefix = '/api') =>
  api.request('POST', `${prefix}/auth/login`, { body: { ...account(target), password } });
const me = (token: string, prefix = '/api') => api.request('GET', `${prefix}/users/me`, { token });

const expectError = (response: ApiResponse, status: number, code: number, error: string) => {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body).toMatchObject({ code, error, message: expect.any(String) });
};
const expectUnauthorized = (response: ApiResponse) => {
  expect(response.status).toBe(401);
  expect(response.body).toMatchObject({ code: 401 });
};

describe('register and log in with a password', () => {
  it('registers by e-mail (no token), logs in by e-mail, and reads the user', async () => {
    const email = uniqueEmail('register');
    const registered = await register(email, 'first password');
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    expect(registered.body).toEqual({ userId: expect.any(Number), phone: null, email, createdAt: expect.stringMatching(ISO_SECONDS) });

    const loggedIn = await login(email.toUpperCase(), 'first password');
    expect(loggedIn.status).toBe(200);
    // Seed 4.3: no code or message fields.
    expect(loggedIn.body).toEqual({
      token: expect.stringMatching(JWT),
      refreshToken: expect.any(String),
      expiresIn: 86_400,
      userId: registered.body.userId,
      phone: null,
      email,
    });

    const user = await me(loggedIn.body.token);
    expect(user.status).toBe(200);
    expect(user.body).toEqual({
      userId: registered.body.userId,
      phone: null,
      email,
      timeZone: null,
      locale: null,
      createdAt: registered.body.createdAt,
      updatedAt: expect.stringMatching(ISO_SECONDS),
    });
  });

  it('refuses to register a target that already has an account: 400 ACCOUNT_EXISTS', async () => {
    const phone = uniquePhone();
    const existing = await signIn(api, phone);
    api.clock.advance(61);
    const again = await register(phone, 'a new password');
    expectError(again, 400, 1, 'ACCOUNT_EXISTS');
    // The account is unchanged: still no password.
    expectError(await login(phone, 'a new password'), 400, 1, 'INVALID_CREDENTIALS');
    api.clock.advance(61);
    expect((await signIn(api, phone)).userId).toBe(existing.userId);
  });

  it('needs a code sent to the target being registered', async () => {
    const [mine, other] = [uniqueEmail(), uniqueEmail()];
    const otherCode = await sendCode(other);
    await sendCode(mine);
    const response = await api.request('POST', '/api/auth/register', { body: { email: mine, verifyCode: otherCode, password: 'password one' } });
    expectError(response, 400, 1, 'CODE_INVALID');
  });

  it('answers an unknown account, a wrong password and a password-less account alike: 400 INVALID_CREDENTIALS', async () => {
    const email = uniqueEmail('creds');
    expect((await register(email, 'the right password')).status).toBe(200);
    const codeOnly = uniquePhone();
    await signIn(api, codeOnly);

    const wrongPassword = await login(email, 'the wrong password');
    const unknownAccount = await login(uniqueEmail('nobody'), 'the wrong password');
    const noPassword = await login(codeOnly, 'the wrong password');
    expectError(wrongPassword, 400, 1, 'INVALID_CREDENTIALS');
    for (const other of [unknownAccount, noPassword]) {
      expect({ status: other.status, body: other.body }).toEqual({ status: wrongPassword.status, body: wrongPassword.body });
    }
  });

  it('locks password login after 5 failures in 15 minutes; code login still works; unlocked after 15 minutes', async () => {
    const email = uniqueEmail('locked');
    expect((await register(email, 'the right password')).status).toBe(200);
    for (let failure = 1; failure <= 5; failure++) {
      api.clock.advance(60);
      expectError(await login(email, `wrong password ${failure}`), 400, 1, 'INVALID_CREDENTIALS');
    }

    const right = await login(email, 'the right password');
    const wrong = await login(email, 'wrong password 6');
    expectError(right, 400, 1, 'LOGIN_LOCKED');
    expectError(wrong, 400, 1, 'LOGIN_LOCKED');
    // The same answer whether or not the password was right: the lock reveals nothing.
    const { retryAfterSeconds, ...rightRest } = right.body;
    const { retryAfterSeconds: wrongRetry, ...wrongRest } = wrong.body;
    expect(wrongRest).toEqual(rightRest);
    expect(Math.abs(retryAfterSeconds - wrongRetry)).toBeLessThanOrEqual(1);
    expect(retryAfterSeconds).toBeGreaterThan(14 * 60);
    expect(retryAfterSeconds).toBeLessThanOrEqual(15 * 60);
    expect(right.headers.get('retry-after')).toBe(String(retryAfterSeconds));

    const withCode = await signIn(api, email);
    expect((await me(withCode.token)).status).toBe(200);

    api.clock.advance(14 * 60);
    expectError(await login(email, 'the right password'), 400, 1, 'LOGIN_LOCKED');
    api.clock.advance(61);
    const unlocked = await login(email, 'the right password');
    expect(unlocked.status, JSON.stringify(unlocked.body)).toBe(200);
  });

  it('counts any 5 failures within 15 minutes, also across a quarter-hour that began with an older failure', async () => {
    const phone = uniquePhone();
    expect((await register(phone, 'the right password')).status).toBe(200);
    expectError(await login(phone, 'wrong password 1'), 400, 1, 'INVALID_CREDENTIALS');
    api.clock.advance(14 * 60);
    for (const attempt of [2, 3, 4]) expectError(await login(phone, `wrong password ${attempt}`), 400, 1, 'INVALID_CREDENTIALS');
    // 16 minutes after the first failure: it no longer counts, but the three of 2 minutes ago do.
    api.clock.advance(2 * 60);
    for (const attempt of [5, 6]) expectError(await login(phone, `wrong password ${attempt}`), 400, 1, 'INVALID_CREDENTIALS');
    expectError(await login(phone, 'the right password'), 400, 1, 'LOGIN_LOCKED');
  });

  it('upgrades a hash made with weaker parameters to OWASP\'s at the next login', async () => {
    // A server at the real parameters: the other tests of this file hash at the test servers' lower cost.
    const api = await startLocalApi({ PASSWORD_HASH_COST: '17' });
    onTestFinished(() => api.close());
    const login = (target: string, password: string) => api.request('POST', '/api/auth/login', { body: { email: target, password } });
    const email = uniqueEmail('rehash');
    const session = await signIn(api, email);
    const weak = await hashPassword('an old password', { ln: 10, r: 8, p: 1 });
    await api.db.client.send(
      new UpdateCommand({
        TableName: api.db.tableName,
        Key: keys.user(session.userId),
        UpdateExpression: 'SET passwordHash = :hash',
        ExpressionAttributeValues: { ':hash': weak },
      }),
    );
    expect((await login(email, 'an old password')).status).toBe(200);
    const stored = await api.db.client.send(new GetCommand({ TableName: api.db.tableName, Key: keys.user(session.userId), ConsistentRead: true }));
    expect(stored.Item?.passwordHash).toMatch(/^\$scrypt\$ln=17,r=8,p=1\$/);
    expect((await login(email, 'an old password')).status).toBe(200);
  });

  it('registers by phone and logs in by phone, all at /api/v1, and resets the password there', async () => {
    const phone = uniquePhone();
    const registered = await register(phone, 'phone password', '/api/v1');
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    expect(registered.body).toMatchObject({ phone, email: null });

    const loggedIn = await login(phone, 'phone password', '/api/v1');
    expect(loggedIn.body).toEqual({
      token: expect.stringMatching(JWT),
      refreshToken: expect.any(String),
      expiresIn: 86_400,
      userId: registered.body.userId,
      phone,
      email: null,
    });
    expect((await me(loggedIn.body.token, '/api/v1')).body).toMatchObject({ userId: registered.body.userId, phone });
    expect((await api.request('POST', '/api/v1/auth/logout', { token: loggedIn.body.token })).body).toEqual({ code: 0, message: expect.any(String) });

    api.clock.advance(61);
    const code = await sendCode(phone, '/api/v1');
    const reset = await api.request('POST', '/api/v1/auth/password/reset', { body: { target: phone, verifyCode: code, newPassword: 'new phone password' } });
    expect(reset.body).toEqual({ code: 0, message: expect.any(String) });
    expectUnauthorized(await me(loggedIn.body.token, '/api/v1'));
  });
});

describe('POST /api/auth/logout', () => {
  it('answers {code:0, message} with a token and keeps no state (seed 4.5)', async () => {
    const session = await signIn(api, uniqueEmail('logout'));
    const response = await api.request('POST', '/api/auth/logout', { token: session.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ code: 0, message: expect.any(String) });
    expect((await me(session.token)).status).toBe(200);
  });

  it('is served by the Allow the authorizer cached for another route and method (policy covers the whole API)', async () => {
    const session = await signIn(api, uniqueEmail('cached'));
    expect((await me(session.token)).status).toBe(200);
    expect((await api.request('POST', '/api/auth/logout', { token: session.token })).status).toBe(200);
    expect((await api.request('POST', '/api/v1/auth/logout', { token: session.token })).status).toBe(200);
    expect((await me(session.token, '/api/v1')).status).toBe(200);
  });

  it('answers 401 {code:401} without a token', async () => {
    expectUnauthorized(await api.request('POST', '/api/auth/logout'));
  });
});

describe('POST /api/auth/password/reset', () => {
  it('sets a new password: old tokens get 401, the old password stops working, the new one works', async () => {
    const email = uniqueEmail('reset');
    const registered = await register(email, 'old password');
    const before = await login(email, 'old password');
    expect(before.status).toBe(200);
    // The authorizer has cached an Allow for this token; the reset must still end it.
    expect((await me(before.body.token)).status).toBe(200);

    api.clock.advance(120);
    const reset = await api.request('POST', '/api/auth/password/reset', {
      body: { target: email, verifyCode: await sendCode(email), newPassword: 'new password' },
    });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect(reset.body).toEqual({ code: 0, message: expect.any(String) });

    expectUnauthorized(await me(before.body.token));
    expectError(await login(email, 'old password'), 400, 1, 'INVALID_CREDENTIALS');
    const after = await login(email, 'new password');
    expect(after.status).toBe(200);
    const user = await me(after.body.token);
    expect(user.body).toMatchObject({ userId: registered.body.userId, createdAt: registered.body.createdAt });
    expect(user.body.updatedAt > user.body.createdAt).toBe(true);
  });

  it('ends code-sign-in tokens too, and gives a password to an account that had none', async () => {
    const phone = uniquePhone();
    const session = await signIn(api, phone);
    api.clock.advance(61);
    const reset = await api.request('POST', '/api/auth/password/reset', {
      body: { target: phone, verifyCode: await sendCode(phone), newPassword: 'first password' },
    });
    expect(reset.status).toBe(200);
    expectUnauthorized(await me(session.token));
    expect((await login(phone, 'first password')).body.userId).toBe(session.userId);
  });

  it('refuses a wrong or reused code, and a target without an account, all as CODE_INVALID', async () => {
    const email = uniqueEmail('reset-codes');
    await signIn(api, email);
    api.clock.advance(61);
    const code = await sendCode(email);
    const wrongCode = code.slice(0, 5) + String((Number(code[5]) + 1) % 10);
    expectError(await api.request('POST', '/api/auth/password/reset', { body: { target: email, verifyCode: wrongCode, newPassword: 'whatever pw' } }), 400, 1, 'CODE_INVALID');

    const unknown = uniqueEmail('reset-unknown');
    const unknownCode = await sendCode(unknown);
    const noAccount = await api.request('POST', '/api/auth/password/reset', { body: { target: unknown, verifyCode: unknownCode, newPassword: 'whatever pw' } });
    expectError(noAccount, 400, 1, 'CODE_INVALID');
    // Reset never creates an account.
    expectError(await login(unknown, 'whatever pw'), 400, 1, 'INVALID_CREDENTIALS');
  });

  it('refuses a new password outside 8..128 characters with VALIDATION_FAILED', async () => {
    const response = await api.request('POST', '/api/auth/password/reset', { body: { target: uniqueEmail(), verifyCode: '123456', newPassword: 'short' } });
    expectError(response, 400, 400, 'VALIDATION_FAILED');
    expect(response.body.details).toEqual([{ path: 'body.newPassword', message: expect.any(String) }]);
  });
});

describe('GET /api/users/me', () => {
  it('answers 401 {code:401} without a token or with a token of nobody', async () => {
    expectUnauthorized(await api.request('GET', '/api/users/me'));
    expectUnauthorized(await me('not.a.token'));
  });

  it('answers a token whose lifetime is over with 401 even when the authorizer cached an Allow', async () => {
    const session = await signIn(api, uniqueEmail('expiring'));
    expect((await me(session.token)).status).toBe(200);
    api.clock.advance(24 * 3600 + 31);
    expectUnauthorized(await me(session.token));
  });
});

describe('request errors of the account endpoints', () => {
  it('answers login bodies that are not JSON or miss fields with 400 and details', async () => {
    expectError(await api.request('POST', '/api/auth/login', { rawBody: 'phone=1&password=2', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 400, 400, 'INVALID_JSON');
    const neither = await api.request('POST', '/api/auth/login', { body: { password: 'something' } });
    expectError(neither, 400, 400, 'VALIDATION_FAILED');
    expect(neither.body.details).toEqual([{ path: 'body.email', message: expect.any(String) }]);
    const both = await api.request('POST', '/api/auth/register', {
      body: { email: uniqueEmail(), phone: uniquePhone(), verifyCode: '123456', password: 'long enough' },
    });
    expectError(both, 400, 400, 'VALIDATION_FAILED');
  });
});
