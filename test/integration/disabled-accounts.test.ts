import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeStanding, readProfileItem } from '../../shared/db/account-standing-repository';
import type { StandingChange } from '../../shared/db/account-standing-repository';
import { latestCode, startLocalApi, uniqueEmail } from '../support/local-api';
import type { ApiResponse, LocalApi } from '../support/local-api';
import { sessionHelpers } from '../support/sessions';
import { SoftwareAuthenticator } from '../support/software-authenticator';

/**
 * Issue 37: a disabled account cannot sign in by any method, and every way in is refused by one
 * rule (session-service's `refuseDisabled`, /work/notes/DISABLED.md): a code, a password, a
 * passkey, a refresh token, a password reset all answer 403 ACCOUNT_DISABLED once the credential
 * was proven, and nothing without it; no code is sent to its e-mail. The account is disabled and
 * enabled here through the repository support's `/admin` routes use (test/integration/admin.test.ts
 * drives them over signed HTTP).
 */
const ORIGIN = 'http://localhost:8080';
const PASSWORD = 'correct horse battery staple';
let api: LocalApi;
let people: ReturnType<typeof sessionHelpers>;

beforeAll(async () => {
  api = await startLocalApi({ CODE_RESEND_SECONDS: '1' });
  people = sessionHelpers(api);
});
afterAll(() => api?.close());

const expectError = (response: ApiResponse, status: number, error: string) => {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body).toMatchObject({ error, message: expect.any(String) });
};

async function standing(userId: number, change: StandingChange) {
  const profile = await readProfileItem(api.db, userId);
  await changeStanding(api.db, profile!, change);
}

async function sendCode(target: string) {
  api.clock.advance(2);
  expect((await api.request('POST', '/api/verify-code/send', { body: { type: 'email', target } })).status).toBe(200);
  return latestCode(api, target);
}

const login = (email: string, password: string) => api.request('POST', '/api/auth/login', { body: { email, password } });

describe('a disabled account', () => {
  it('is refused by every way in once the credential is proven, gets no code, and comes back with no old session', async () => {
    const email = uniqueEmail('disabled');
    const registered = await api.request('POST', '/api/auth/register', { body: { email, verifyCode: await sendCode(email), password: PASSWORD } });
    expect(registered.status).toBe(200);
    const held = (await login(email, PASSWORD)).body as { token: string; refreshToken: string; userId: number };
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    const options = await api.request('POST', '/api/auth/passkeys/registration-options', { token: held.token });
    expect((await api.request('POST', '/api/auth/passkeys', { token: held.token, body: { response: authenticator.create(options.body) } })).status).toBe(200);
    const passkeySignIn = async () => {
      const challenge = await api.request('POST', '/api/auth/passkey/options');
      return api.request('POST', '/api/auth/passkey/verify', { body: { response: authenticator.get(challenge.body), clientName: 'Phone' } });
    };
    const earlierCode = await sendCode(email);
    await people.expectTokenWorks(held.token);

    await standing(held.userId, { disable: new Date().toISOString().replace(/\.\d+Z$/, 'Z') });
    await people.expectTokenEnded(held.token);
    expectError(await people.refresh(held.refreshToken), 403, 'ACCOUNT_DISABLED');
    expectError(await login(email, PASSWORD), 403, 'ACCOUNT_DISABLED');
    expectError(await passkeySignIn(), 403, 'ACCOUNT_DISABLED');
    expectError(await api.request('POST', '/api/verify-code/verify', { body: { target: email, verifyCode: earlierCode } }), 403, 'ACCOUNT_DISABLED');
    expectError(await api.request('POST', '/api/auth/password/reset', { body: { target: email, verifyCode: earlierCode, newPassword: 'another long password' } }), 403, 'ACCOUNT_DISABLED');
    // Without the credential, nothing is told.
    expectError(await login(email, 'wrong password'), 400, 'INVALID_CREDENTIALS');
    expectError(await api.request('POST', '/api/verify-code/verify', { body: { target: email, verifyCode: '000000' === earlierCode ? '111111' : '000000' } }), 400, 'CODE_INVALID');
    // The send answers as for any target; no code goes out.
    const sent = api.outbox.list(email).length;
    api.clock.advance(2);
    expect((await api.request('POST', '/api/verify-code/send', { body: { type: 'email', target: email } })).status).toBe(200);
    expect(api.outbox.list(email)).toHaveLength(sent);

    await standing(held.userId, { enable: true });
    expectError(await people.refresh(held.refreshToken), 401, 'SESSION_ENDED');
    await people.expectTokenEnded(held.token);
    expect((await passkeySignIn()).status).toBe(200);
    expect((await login(email, PASSWORD)).status).toBe(200);
    // Codes go out again.
    await sendCode(email);
  });
});
