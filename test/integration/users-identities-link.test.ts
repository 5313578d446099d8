import { describe, expect, it } from 'vitest';
import type { ProviderStandIns } from '../../infra/local/provider-stand-ins';
import { findSocialOwner } from '../../shared/db/social-identities-repository';
import { signIn, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { SOCIAL, googleSignIn, socialNonce, wechatSignIn, useSocialApi, uniqueSubject } from '../support/social';

/**
 * POST /api/users/me/identities/{provider} (issue 38, docs/social-sign-in.md): linking Apple,
 * Google or WeChat from a signed-in session, against the provider stand-ins and DynamoDB Local.
 */
let api: LocalApi;
let standIns: ProviderStandIns;
useSocialApi((servers) => ({ api, standIns } = servers));
const sub = uniqueSubject;

/** A Google sign-in body for `person`, with a fresh nonce. */
async function googleBody(person: string, email?: string) {
  const { nonce, hash } = await socialNonce(api);
  const { idToken } = await standIns.google.issue({ sub: person, clientId: SOCIAL.google, nonce: hash, ...(email ? { email } : {}) });
  return { idToken, nonce };
}

async function appleBody(person: string, fullName?: { givenName: string; familyName: string }) {
  const { nonce, hash } = await socialNonce(api);
  const issued = await standIns.apple.issue({ sub: person, clientId: SOCIAL.apple, email: `${person}@privaterelay.appleid.com`, isPrivateEmail: true, nonce: hash });
  return { ...issued, nonce, ...(fullName ? { fullName } : {}) };
}

const link = (token: string | undefined, provider: string, body: unknown) =>
  api.request('POST', `/api/users/me/identities/${provider}`, { ...(token ? { token } : {}), body });

describe('POST /api/users/me/identities/{provider}', () => {
  it("answers 200 with the linked identity for the caller's own, and the identity then signs in to this account", async () => {
    const owner = await signIn(api, uniqueEmail('owner'));
    const person = sub('google');
    const email = `${person}@example.org`;
    const linked = await link(owner.token, 'google', await googleBody(person, email));
    expect(linked.status, JSON.stringify(linked.body)).toBe(200);
    expect(linked.body).toEqual({ provider: 'google', linkedAt: expect.any(String), email, givenName: null, familyName: null });
    expect((await api.request('GET', '/api/users/me/identities', { token: owner.token })).body).toEqual([linked.body]);
    // An address Google is not authoritative for: signing in would be 409 without the link; with it, this account.
    expect((await googleSignIn(api, standIns, { sub: person, email })).body).toMatchObject({ userId: owner.userId, isNewUser: false });
    // Linked already to this account: answered as it is.
    expect((await link(owner.token, 'google', await googleBody(person, email))).body).toEqual(linked.body);
  });

  it("links Apple with the name it gave, and WeChat, whose code is the proof", async () => {
    const owner = await signIn(api, uniqueEmail('owner'));
    const apple = await link(owner.token, 'apple', await appleBody(sub('apple'), { givenName: 'Ann', familyName: 'Lee' }));
    expect(apple.body).toMatchObject({ provider: 'apple', givenName: 'Ann', familyName: 'Lee' });
    const wechat = await link(owner.token, 'wechat', { code: standIns.wechat.issue({ appId: SOCIAL.wechat, subject: sub('wechat') }).code });
    expect(wechat.body).toMatchObject({ provider: 'wechat', email: null });
    expect(((await api.request('GET', '/api/users/me/identities', { token: owner.token })).body as { provider: string }[]).map((each) => each.provider)).toEqual(['apple', 'wechat']);
  });

  it('answers 400 naming path.provider for an unknown provider, and 400 for another provider\'s body', async () => {
    const owner = await signIn(api, uniqueEmail('owner'));
    const unknown = await link(owner.token, 'facebook', await googleBody(sub('google')));
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED', details: [expect.objectContaining({ path: 'path.provider' })] });
    // Google's body sent as Apple's: a credential Apple's verification cannot take.
    const mismatched = await link(owner.token, 'apple', await googleBody(sub('google')));
    expect(mismatched.status).toBe(401);
    expect(mismatched.body).toMatchObject({ code: 401, error: 'SOCIAL_CREDENTIAL_INVALID' });
    expect(await api.request('GET', '/api/users/me/identities', { token: owner.token })).toMatchObject({ body: [] });
  });

  it('refuses a request without credentials, and a credential that does not verify', async () => {
    expect((await link(undefined, 'google', await googleBody(sub('google')))).status).toBe(401);
    const owner = await signIn(api, uniqueEmail('owner'));
    const body = await googleBody(sub('google'));
    expect((await link(owner.token, 'google', { ...body, nonce: (await socialNonce(api)).nonce })).body).toMatchObject({ code: 401, error: 'SOCIAL_CREDENTIAL_INVALID' });
  });

  it('answers 403 REAUTHENTICATION_REQUIRED more than 10 minutes after the session signed in; a new sign-in may link', async () => {
    const owner = await signIn(api, uniqueEmail('owner'));
    api.clock.advance(601);
    const refused = await link(owner.token, 'google', await googleBody(sub('google')));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 403, error: 'REAUTHENTICATION_REQUIRED' });
    const fresh = await signIn(api, (await api.request('GET', '/api/users/me', { token: owner.token })).body.email as string);
    expect((await link(fresh.token, 'google', await googleBody(sub('google')))).status).toBe(200);
  });

  it("answers 409 for another account's identity, which stays with it, and for a second identity of one provider", async () => {
    // The owner's identity, which a stranger's session tries to take: 409, and it stays the owner's.
    const person = sub('google');
    const other = await googleSignIn(api, standIns, { sub: person });
    const stranger = await signIn(api, uniqueEmail('stranger'));
    const taken = await link(stranger.token, 'google', await googleBody(person));
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ code: 409, error: 'IDENTITY_IN_USE' });
    expect(await findSocialOwner(api.db, 'google', person)).toBe(other.body.userId);
    expect((await api.request('GET', '/api/users/me/identities', { token: other.body.token })).body).toMatchObject([{ provider: 'google' }]);
    expect((await api.request('GET', '/api/users/me/identities', { token: stranger.token })).body).toEqual([]);
    const owner = stranger;

    expect((await link(owner.token, 'google', await googleBody(sub('google')))).status).toBe(200);
    const second = await link(owner.token, 'google', await googleBody(sub('google')));
    expect(second.body).toMatchObject({ code: 409, error: 'PROVIDER_ALREADY_LINKED' });
  });

  it('two accounts linking one identity at once: one gets it', async () => {
    const person = sub('wechat');
    const [first, second] = await Promise.all([signIn(api, uniqueEmail('a')), signIn(api, uniqueEmail('b'))]);
    const answers = await Promise.all([first, second].map((account) => link(account.token, 'wechat', { code: standIns.wechat.issue({ appId: SOCIAL.wechat, subject: person }).code })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const winner = answers[0]!.status === 200 ? first : second;
    expect((await wechatSignIn(api, standIns, person)).body).toMatchObject({ userId: winner.userId, isNewUser: false });
  });
});
