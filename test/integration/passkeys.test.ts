import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPasskeyOwner, listPasskeys } from '../../shared/db/passkeys-repository';
import { purgeAccountData } from '../../shared/db/account-deletion';
import { latestCode, signIn, startLocalApi, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { SoftwareAuthenticator } from '../support/software-authenticator';
import type { AssertionOverrides, CeremonyOverrides } from '../support/software-authenticator';

/**
 * Issue 30: passkeys as a first factor, driven by a software authenticator (P-256, real
 * authenticatorData, clientDataJSON and CBOR attestation) against the local server and DynamoDB
 * Local. Every refusal is the same 401 PASSKEY_INVALID; the log says which check refused.
 */
const ORIGIN = 'http://localhost:8080';
let api: LocalApi;
const logs: string[] = [];

beforeAll(async () => {
  api = await startLocalApi({ LOG_LEVEL: 'info' }, { logSink: (line) => logs.push(line) });
});

afterAll(async () => {
  await api?.close();
});

const refusalsLogged = () => logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.message === 'passkey refused');

async function addPasskey(token: string, authenticator: SoftwareAuthenticator, overrides: CeremonyOverrides = {}, name?: string) {
  const options = await api.request('POST', '/api/auth/passkeys/registration-options', { token });
  expect(options.status, JSON.stringify(options.body)).toBe(200);
  const response = authenticator.create(options.body, overrides);
  return api.request('POST', '/api/auth/passkeys', { token, body: { response, ...(name === undefined ? {} : { name }) } });
}

async function passkeySignIn(authenticator: SoftwareAuthenticator, overrides: AssertionOverrides = {}) {
  const options = await api.request('POST', '/api/auth/passkey/options');
  expect(options.status).toBe(200);
  const response = authenticator.get(options.body, overrides);
  return { response, answer: await api.request('POST', '/api/auth/passkey/verify', { body: { response, clientName: 'Test phone' } }) };
}

/** A signed-in account holding one passkey on a fresh authenticator. */
async function accountWithPasskey(settings: { counts?: boolean; synced?: boolean } = {}) {
  const account = await signIn(api, uniqueEmail('passkey'));
  const authenticator = new SoftwareAuthenticator({ origin: ORIGIN, ...settings });
  const added = await addPasskey(account.token, authenticator);
  expect(added.status, JSON.stringify(added.body)).toBe(200);
  return { account, authenticator, passkey: added.body as { passkeyId: string } };
}

function expectRefused(answer: { status: number; body: any }, reason: RegExp) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(401);
  expect(answer.body).toEqual({ code: 401, error: 'PASSKEY_INVALID', message: 'The passkey could not be verified.' });
  expect(refusalsLogged().at(-1)?.reason).toMatch(reason);
}

describe('passkeys: the full ceremony', () => {
  it('registers, lists, renames, signs in, signs in again, is deleted, then signs no one in', async () => {
    const account = await signIn(api, uniqueEmail('passkey-full'));
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN, synced: true });

    const options = await api.request('POST', '/api/auth/passkeys/registration-options', { token: account.token });
    expect(options.status).toBe(200);
    expect(options.body).toMatchObject({
      rp: { id: 'localhost', name: 'Captions' },
      user: { name: account.email },
      attestation: 'none',
      excludeCredentials: [],
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
    });
    const added = await api.request('POST', '/api/auth/passkeys', { token: account.token, body: { response: authenticator.create(options.body), name: 'My phone' } });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body).toEqual({
      passkeyId: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      name: 'My phone',
      createdAt: expect.any(String),
      lastUsedAt: null,
      backedUp: true,
      transports: ['internal', 'hybrid'],
    });
    const { passkeyId } = added.body;

    // The next options exclude it, so the platform does not make a second one on this authenticator.
    const next = await api.request('POST', '/api/auth/passkeys/registration-options', { token: account.token });
    expect(next.body.excludeCredentials).toEqual([{ id: authenticator.credentials[0]!.id.toString('base64url'), type: 'public-key', transports: ['internal', 'hybrid'] }]);
    expect(next.body.user.id).toBe(options.body.user.id);

    expect((await api.request('GET', '/api/auth/passkeys', { token: account.token })).body).toEqual([added.body]);
    const renamed = await api.request('PATCH', `/api/auth/passkeys/${passkeyId}`, { token: account.token, body: { name: 'iPhone 15' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...added.body, name: 'iPhone 15' });

    const signInOptions = await api.request('POST', '/api/auth/passkey/options');
    expect(signInOptions.body).toEqual({ challenge: expect.any(String), rpId: 'localhost', timeout: 300_000, userVerification: 'required' });
    expect(signInOptions.body).not.toHaveProperty('allowCredentials');

    const first = await api.request('POST', '/api/auth/passkey/verify', { body: { response: authenticator.get(signInOptions.body), clientName: 'Test phone' } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual({
      code: 0,
      message: 'Signed in.',
      token: expect.any(String),
      refreshToken: expect.any(String),
      expiresIn: expect.any(Number),
      userId: account.userId,
      phone: null,
      email: account.email,
    });
    // A session like any other: the token works, the session is listed, the refresh token refreshes.
    expect((await api.request('GET', '/api/users/me', { token: first.body.token })).body.userId).toBe(account.userId);
    const sessions = await api.request('GET', '/api/auth/sessions', { token: first.body.token });
    expect(sessions.body.find((session: { current: boolean }) => session.current).clientName).toBe('Test phone');
    expect((await api.request('POST', '/api/auth/token/refresh', { body: { refreshToken: first.body.refreshToken } })).status).toBe(200);

    const again = await passkeySignIn(authenticator);
    expect(again.answer.status).toBe(200);
    expect(again.answer.body.token).not.toBe(first.body.token);
    const listed = (await api.request('GET', '/api/auth/passkeys', { token: account.token })).body;
    expect(listed[0].lastUsedAt).toEqual(expect.any(String));

    expect((await api.request('DELETE', `/api/auth/passkeys/${passkeyId}`, { token: account.token })).status).toBe(200);
    expect((await api.request('GET', '/api/auth/passkeys', { token: account.token })).body).toEqual([]);
    expect((await api.request('DELETE', `/api/auth/passkeys/${passkeyId}`, { token: account.token })).status).toBe(404);
    expectRefused((await passkeySignIn(authenticator)).answer, /unknown or removed credential/);
  });

  it('counts a passkey sign-in in the business metrics with its method', async () => {
    const { authenticator } = await accountWithPasskey();
    const before = api.metrics.summary().find((total) => total.name === 'SignIns' && total.dimensions.method === 'passkey')?.value ?? 0;
    expect((await passkeySignIn(authenticator)).answer.status).toBe(200);
    const after = api.metrics.summary().find((total) => total.name === 'SignIns' && total.dimensions.method === 'passkey')?.value ?? 0;
    expect(after).toBe(before + 1);
  });

  it('the passkey outlives the end of every session, and a password reset', async () => {
    const { account, authenticator } = await accountWithPasskey();
    expect((await api.request('DELETE', '/api/auth/sessions', { token: account.token })).status).toBe(200);
    expect((await api.request('DELETE', `/api/auth/sessions/${(await api.request('GET', '/api/auth/sessions', { token: account.token })).body[0].sessionId}`, { token: account.token })).status).toBe(200);
    expect((await passkeySignIn(authenticator)).answer.status).toBe(200);
    // A reset ends every session, as always, and leaves the passkeys: they were never the password.
    api.clock.advance(api.config.CODE_RESEND_SECONDS + 1);
    await api.request('POST', '/api/verify-code/send', { body: { type: 'email', target: account.email } });
    const reset = await api.request('POST', '/api/auth/password/reset', { body: { target: account.email, verifyCode: latestCode(api, account.email!), newPassword: 'another-long-pass-phrase-7' } });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    const after = await passkeySignIn(authenticator);
    expect(after.answer.status).toBe(200);
    expect((await api.request('GET', '/api/auth/passkeys', { token: after.answer.body.token })).body).toHaveLength(1);
  });
});

describe('passkeys: each refusal', () => {
  it('refuses a replayed assertion: the challenge is spent', async () => {
    const { authenticator } = await accountWithPasskey({ synced: true });
    const { response, answer } = await passkeySignIn(authenticator);
    expect(answer.status).toBe(200);
    expectRefused(await api.request('POST', '/api/auth/passkey/verify', { body: { response } }), /challenge already used/);
  });

  it('accepts an assertion once when it is sent twice at once', async () => {
    const { authenticator } = await accountWithPasskey({ synced: true });
    const options = await api.request('POST', '/api/auth/passkey/options');
    const response = authenticator.get(options.body);
    const answers = await Promise.all([1, 2, 3].map(() => api.request('POST', '/api/auth/passkey/verify', { body: { response } })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401, 401]);
  });

  it('refuses a challenge of another ceremony', async () => {
    const { account, authenticator } = await accountWithPasskey();
    const registration = await api.request('POST', '/api/auth/passkeys/registration-options', { token: account.token });
    const response = authenticator.get({ challenge: registration.body.challenge, rpId: 'localhost' });
    expectRefused(await api.request('POST', '/api/auth/passkey/verify', { body: { response } }), /another ceremony/);
    // And the other way round: a sign-in challenge cannot add a passkey.
    const signInOptions = await api.request('POST', '/api/auth/passkey/options');
    const created = new SoftwareAuthenticator({ origin: ORIGIN }).create({ ...registration.body, challenge: signInOptions.body.challenge });
    expectRefused(await api.request('POST', '/api/auth/passkeys', { token: account.token, body: { response: created } }), /another ceremony/);
  });

  it('refuses an expired challenge', async () => {
    const { authenticator } = await accountWithPasskey();
    const options = await api.request('POST', '/api/auth/passkey/options');
    api.clock.advance(301);
    expectRefused(await api.request('POST', '/api/auth/passkey/verify', { body: { response: authenticator.get(options.body) } }), /challenge expired/);
  });

  it('refuses a challenge the service did not sign', async () => {
    const { authenticator } = await accountWithPasskey();
    const options = await api.request('POST', '/api/auth/passkey/options');
    const forged = Buffer.from(Buffer.from(options.body.challenge, 'base64url').toString('utf8').replace(/\.(\d+)\./, (_, at) => `.${Number(at) + 3600}.`)).toString('base64url');
    expectRefused(await api.request('POST', '/api/auth/passkey/verify', { body: { response: authenticator.get({ ...options.body, challenge: forged }) } }), /not issued by this service/);
  });

  it('refuses a registration challenge of another account', async () => {
    const { account } = await accountWithPasskey();
    const other = await signIn(api, uniqueEmail('passkey-other'));
    const options = await api.request('POST', '/api/auth/passkeys/registration-options', { token: account.token });
    const response = new SoftwareAuthenticator({ origin: ORIGIN }).create(options.body);
    expectRefused(await api.request('POST', '/api/auth/passkeys', { token: other.token, body: { response } }), /another account/);
  });

  it('refuses another origin', async () => {
    const { account, authenticator } = await accountWithPasskey();
    expectRefused((await passkeySignIn(authenticator, { origin: 'http://localhost:8081' })).answer, /origin/i);
    expectRefused(await addPasskey(account.token, new SoftwareAuthenticator({ origin: 'https://evil.example' })), /origin/i);
  });

  it('refuses another RP ID', async () => {
    const { account, authenticator } = await accountWithPasskey();
    expectRefused((await passkeySignIn(authenticator, { rpId: 'example.com' })).answer, /RP ID/i);
    expectRefused(await addPasskey(account.token, new SoftwareAuthenticator({ origin: ORIGIN }), { rpId: 'example.com' }), /RP ID/i);
  });

  it('refuses when user verification is absent', async () => {
    const { account, authenticator } = await accountWithPasskey();
    expectRefused((await passkeySignIn(authenticator, { userVerified: false })).answer, /verif/i);
    expectRefused(await addPasskey(account.token, new SoftwareAuthenticator({ origin: ORIGIN }), { userVerified: false }), /verif/i);
  });

  it('refuses a forged signature', async () => {
    const { authenticator } = await accountWithPasskey();
    expectRefused((await passkeySignIn(authenticator, { forgeSignature: true })).answer, /signature/i);
  });

  it('refuses a counter that goes backwards, and logs it; a synced passkey always sending 0 is accepted', async () => {
    const { authenticator } = await accountWithPasskey({ counts: true });
    expect((await passkeySignIn(authenticator, { counter: 7 })).answer.status).toBe(200);
    expectRefused((await passkeySignIn(authenticator, { counter: 3 })).answer, /counter/i);
    expect(logs.some((line) => JSON.parse(line).message === 'passkey counter went backwards')).toBe(true);
    expect((await passkeySignIn(authenticator, { counter: 8 })).answer.status).toBe(200);

    const synced = await accountWithPasskey({ synced: true });
    for (let attempt = 0; attempt < 3; attempt++) expect((await passkeySignIn(synced.authenticator)).answer.status).toBe(200);
  });

  it('refuses the credential of a deleted account, and the purge removes its passkeys', async () => {
    const { account, authenticator, passkey } = await accountWithPasskey();
    expect((await api.request('DELETE', '/api/users/me', { token: account.token })).status).toBe(200);
    const refused = (await passkeySignIn(authenticator)).answer;
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('PASSKEY_INVALID');
    await purgeAccountData(api.db, account.userId);
    expect(await listPasskeys(api.db, account.userId)).toEqual([]);
    expect(await findPasskeyOwner(api.db, passkey.passkeyId)).toBeUndefined();
    expectRefused((await passkeySignIn(authenticator)).answer, /unknown or removed credential/);
  });

  it('refuses a removed passkey, even when its assertion was made before the removal', async () => {
    const { account, authenticator, passkey } = await accountWithPasskey();
    const options = await api.request('POST', '/api/auth/passkey/options');
    const response = authenticator.get(options.body);
    expect((await api.request('DELETE', `/api/auth/passkeys/${passkey.passkeyId}`, { token: account.token })).status).toBe(200);
    expectRefused(await api.request('POST', '/api/auth/passkey/verify', { body: { response } }), /unknown or removed credential/);
  });

  it('refuses an eleventh passkey with a clear 400, also when the tenth and eleventh race', async () => {
    const account = await signIn(api, uniqueEmail('passkey-many'));
    for (let index = 0; index < 9; index++) {
      expect((await addPasskey(account.token, new SoftwareAuthenticator({ origin: ORIGIN }))).status).toBe(200);
    }
    const [tenth, eleventh] = await Promise.all([1, 2].map(() => api.request('POST', '/api/auth/passkeys/registration-options', { token: account.token })));
    const answers = await Promise.all(
      [tenth!, eleventh!].map((options) =>
        api.request('POST', '/api/auth/passkeys', { token: account.token, body: { response: new SoftwareAuthenticator({ origin: ORIGIN }).create(options.body) } }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    expect(answers.find((answer) => answer.status === 400)!.body).toMatchObject({ code: 1, error: 'PASSKEY_LIMIT_REACHED' });
    expect((await api.request('GET', '/api/auth/passkeys', { token: account.token })).body).toHaveLength(10);
    const options = await api.request('POST', '/api/auth/passkeys/registration-options', { token: account.token });
    expect(options.status).toBe(400);
    expect(options.body.error).toBe('PASSKEY_LIMIT_REACHED');
  });

  it('answers a malformed credential with a 400 and a well-formed but wrong one with the same 401', async () => {
    const malformed = await api.request('POST', '/api/auth/passkey/verify', { body: { response: { id: 'x' } } });
    expect(malformed.status).toBe(400);
    const { authenticator } = await accountWithPasskey();
    const options = await api.request('POST', '/api/auth/passkey/options');
    const response = authenticator.get(options.body);
    expectRefused(await api.request('POST', '/api/auth/passkey/verify', { body: { response: { ...response, response: { ...response.response, clientDataJSON: 'bm90LWpzb24' } } } }), /not JSON/);
  });
});
