import { describe, expect, it } from 'vitest';
import type { ProviderStandIns } from '../../infra/local/provider-stand-ins';
import { handler as revokeAppleTokensJob } from '../../functions/jobs/revoke-apple-tokens';
import { pendingRevocations } from '../../shared/db/apple-revocations-repository';
import { findSocialOwner } from '../../shared/db/social-identities-repository';
import { signIn, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { SOCIAL, appleSignIn, googleSignIn, socialNonce, wechatSignIn, useSocialApi, uniqueSubject } from '../support/social';
import { SoftwareAuthenticator } from '../support/software-authenticator';

/**
 * DELETE /api/users/me/identities/{provider} (issue 38, docs/social-sign-in.md): unlinking, never
 * the account's last way in, and Apple's token revoked at Apple (the stand-in).
 */
let api: LocalApi;
let standIns: ProviderStandIns;
useSocialApi((servers) => ({ api, standIns } = servers));
const sub = uniqueSubject;

const unlink = (token: string | undefined, provider: string) => api.request('DELETE', `/api/users/me/identities/${provider}`, token ? { token } : {});
/** The Apple revocations still pending for an account (recorded with an unlink, removed once Apple confirms). */
async function pendingFor(userId: number) {
  const pending = [];
  for await (const revocation of pendingRevocations(api.db)) if (revocation.userId === userId) pending.push(revocation);
  return pending;
}
const providersOf = async (token: string) => ((await api.request('GET', '/api/users/me/identities', { token })).body as { provider: string }[]).map((each) => each.provider);

async function linkGoogle(token: string, person: string) {
  const { nonce, hash } = await socialNonce(api);
  const { idToken } = await standIns.google.issue({ sub: person, clientId: SOCIAL.google, nonce: hash });
  const answer = await api.request('POST', '/api/users/me/identities/google', { token, body: { idToken, nonce } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
}

describe('DELETE /api/users/me/identities/{provider}', () => {
  it("answers 200 for the caller's own: the identity is free again and signs up anew", async () => {
    const owner = await signIn(api, uniqueEmail('owner'));
    const person = sub('google');
    await linkGoogle(owner.token, person);
    const answer = await unlink(owner.token, 'google');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ code: 0 });
    expect(await providersOf(owner.token)).toEqual([]);
    expect(await findSocialOwner(api.db, 'google', person)).toBeUndefined();
    const again = await googleSignIn(api, standIns, { sub: person });
    expect(again.body).toMatchObject({ isNewUser: true });
    expect(again.body.userId).not.toBe(owner.userId);
  });

  it("answers 404 for a stranger and leaves the owner's identity; 400 naming path.provider for an unknown provider, 401 without credentials, 404 when none is linked", async () => {
    const owner = await signIn(api, uniqueEmail('owner'));
    // A stranger's unlink of a provider the owner linked: 404 for the stranger, the owner's stays.
    await linkGoogle(owner.token, sub('google'));
    const stranger = await signIn(api, uniqueEmail('stranger'));
    expect((await unlink(stranger.token, 'google')).body).toMatchObject({ code: 404, error: 'NOT_FOUND' });
    expect(await providersOf(owner.token)).toEqual(['google']);
    const unknown = await unlink(owner.token, 'facebook');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED', details: [expect.objectContaining({ path: 'path.provider' })] });
    expect((await unlink(undefined, 'google')).status).toBe(401);
    expect((await unlink(owner.token, 'wechat')).body).toMatchObject({ code: 404, error: 'NOT_FOUND' });
  });

  it("refuses 409 LAST_SIGN_IN_METHOD for the account's only way in, and unlinks once another exists", async () => {
    const made = await wechatSignIn(api, standIns, sub('wechat'));
    const token = made.body.token as string;
    expect((await unlink(token, 'wechat')).body).toMatchObject({ code: 409, error: 'LAST_SIGN_IN_METHOD' });
    expect(await providersOf(token)).toEqual(['wechat']);
    await linkGoogle(token, sub('google'));
    expect((await unlink(token, 'wechat')).status).toBe(200);
    expect((await unlink(token, 'google')).body).toMatchObject({ error: 'LAST_SIGN_IN_METHOD' });

    // A passkey is a way in too.
    const authenticator = new SoftwareAuthenticator({ origin: 'http://localhost:8080' });
    const options = await api.request('POST', '/api/auth/passkeys/registration-options', { token });
    const added = await api.request<{ passkeyId: string }>('POST', '/api/auth/passkeys', { token, body: { response: authenticator.create(options.body) } });
    expect(added.status).toBe(200);
    expect((await unlink(token, 'google')).status).toBe(200);
    expect(await providersOf(token)).toEqual([]);
    // Now that passkey is the account's only way in: it stays.
    const removed = await api.request('DELETE', `/api/auth/passkeys/${added.body.passkeyId}`, { token });
    expect(removed.body).toMatchObject({ code: 409, error: 'LAST_SIGN_IN_METHOD' });
    expect(((await api.request('GET', '/api/auth/passkeys', { token })).body as unknown[]).length).toBe(1);
    // With a second passkey, either may go, not both.
    const second = new SoftwareAuthenticator({ origin: 'http://localhost:8080' });
    const moreOptions = await api.request('POST', '/api/auth/passkeys/registration-options', { token });
    expect((await api.request('POST', '/api/auth/passkeys', { token, body: { response: second.create(moreOptions.body) } })).status).toBe(200);
    expect((await api.request('DELETE', `/api/auth/passkeys/${added.body.passkeyId}`, { token })).status).toBe(200);
    const [last] = (await api.request('GET', '/api/auth/passkeys', { token })).body as { passkeyId: string }[];
    expect((await api.request('DELETE', `/api/auth/passkeys/${last!.passkeyId}`, { token })).body).toMatchObject({ error: 'LAST_SIGN_IN_METHOD' });
  });

  it("counts Apple's private relay address as no way in when Apple itself is unlinked: it stops forwarding", async () => {
    const person = sub('relay');
    const made = await appleSignIn(api, standIns, { sub: person, email: `${person}@privaterelay.appleid.com`, isPrivateEmail: true });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const token = made.body.token as string;
    expect((await api.request('GET', '/api/users/me', { token })).body).toMatchObject({ email: `${person}@privaterelay.appleid.com` });
    expect((await unlink(token, 'apple')).body).toMatchObject({ code: 409, error: 'LAST_SIGN_IN_METHOD' });
    expect(await providersOf(token)).toEqual(['apple']);
    await linkGoogle(token, sub('google'));
    expect((await unlink(token, 'apple')).status).toBe(200);
    expect(await providersOf(token)).toEqual(['google']);
  });

  it("two unlinks of an account's last two identities at once: one is refused, a way in is left", async () => {
    const made = await wechatSignIn(api, standIns, sub('wechat'));
    const token = made.body.token as string;
    await linkGoogle(token, sub('google'));
    const answers = await Promise.all([unlink(token, 'wechat'), unlink(token, 'google')]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect(await providersOf(token)).toHaveLength(1);
  });

  it("unlinking Apple revokes Apple's refresh token at Apple", async () => {
    const person = sub('apple');
    const email = `${person}@example.org`;
    const made = await appleSignIn(api, standIns, { sub: person, email, isPrivateEmail: false });
    const token = made.body.token as string;
    const live = [...standIns.apple.liveRefreshTokens.keys()];
    await linkGoogle(token, sub('google'));
    const revokedBefore = standIns.apple.revoked.length;
    expect((await unlink(token, 'apple')).status).toBe(200);
    const revoked = standIns.apple.revoked.slice(revokedBefore);
    expect(revoked).toHaveLength(1);
    expect(live).toContain(revoked[0]);
    expect(standIns.apple.liveRefreshTokens.has(revoked[0]!)).toBe(false);
    expect(await pendingFor(made.body.userId as number)).toEqual([]);
  });

  it('Apple failing at the unlink: the unlink stands, and the job revoke-apple-tokens revokes the token later', async () => {
    const person = sub('apple');
    const made = await appleSignIn(api, standIns, { sub: person, email: `${person}@example.org`, isPrivateEmail: false });
    const token = made.body.token as string;
    standIns.apple.failRevocations(1);
    expect((await unlink(token, 'apple')).status).toBe(200);
    expect(await providersOf(token)).toEqual([]);
    expect(await pendingFor(made.body.userId as number)).toHaveLength(1);
    const revokedBefore = standIns.apple.revoked.length;
    await revokeAppleTokensJob.withContext(api.context)(undefined, { getRemainingTimeInMillis: () => 120_000 });
    expect(standIns.apple.revoked.length).toBe(revokedBefore + 1);
    expect(await pendingFor(made.body.userId as number)).toEqual([]);
  });
});
