import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, memoryStorage } from '../../client/src/index';
import type { ProviderStandIns } from '../../infra/local/provider-stand-ins';
import { nonceHash } from '../../shared/identity/social/nonces';
import type { LocalApi } from '../support/local-api';
import { latestCode, uniqueEmail } from '../support/local-api';
import { SOCIAL, startSocialApi } from '../support/social';
import { testClient } from './support';

/**
 * The client's social sign-ins (issue 38) against the real local server and the providers'
 * stand-ins: what the platform SDK returns goes in as it is, the session is stored, and the
 * client then works as after any sign-in.
 */
let api: LocalApi;
let standIns: ProviderStandIns;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ api, standIns, close } = await startSocialApi());
});
afterAll(() => close?.());

let counter = 0;
const unique = (label: string) => `${label}-${process.pid}-${Date.now()}-${counter++}`;

describe('client social sign-in', () => {
  it('gives a nonce and its SHA-256 for the provider, each usable once', async () => {
    const client = testClient(api.url);
    const first = await client.auth.socialNonce();
    expect(first.hashedNonce).toBe(nonceHash(first.nonce));
    expect(first.expiresIn).toBeGreaterThan(0);
    expect((await client.auth.socialNonce()).nonce).not.toBe(first.nonce);
  });

  it('signs in with Apple (the name sent with the first authorization only), stores the session, and signs in again to the same account', async () => {
    const storage = memoryStorage();
    const client = testClient(api.url, { storage });
    const sub = unique('apple');
    const signIn = async (fullName?: { givenName: string; familyName: string }) => {
      const { nonce, hashedNonce } = await client.auth.socialNonce();
      // What ASAuthorizationAppleIDCredential hands the app, as text.
      const credential = await standIns.apple.issue({ clientId: SOCIAL.apple, nonce: hashedNonce!, sub, email: `${sub}@privaterelay.appleid.com`, isPrivateEmail: true });
      return client.auth.signInWithApple({ ...credential, nonce, ...(fullName ? { fullName } : {}) });
    };
    const first = await signIn({ givenName: 'Mei', familyName: 'Lin' });
    expect(first.isNewUser).toBe(true);
    expect(await client.auth.isSignedIn()).toBe(true);
    const me = await client.users.me();
    expect(me.userId).toBe(first.userId);
    await client.auth.logout();
    expect(await client.auth.isSignedIn()).toBe(false);
    const again = await signIn();
    expect(again).toMatchObject({ isNewUser: false, userId: first.userId });
  });

  it('signs in with Google and with WeChat; a replayed nonce is ApiError 401 SOCIAL_CREDENTIAL_INVALID and stores nothing', async () => {
    const google = testClient(api.url, { storage: memoryStorage() });
    const { nonce, hashedNonce } = await google.auth.socialNonce();
    const sub = unique('google');
    const { idToken } = await standIns.google.issue({ clientId: SOCIAL.google, nonce: hashedNonce!, sub, email: `${sub}@gmail.com` });
    const signedIn = await google.auth.signInWithGoogle({ idToken, nonce });
    expect(signedIn.isNewUser).toBe(true);
    expect((await google.users.me()).userId).toBe(signedIn.userId);

    const replay = testClient(api.url, { storage: memoryStorage() });
    const refused = await replay.auth.signInWithGoogle({ idToken, nonce }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 401, error: 'SOCIAL_CREDENTIAL_INVALID' });
    expect(await replay.auth.isSignedIn()).toBe(false);

    const wechat = testClient(api.url, { storage: memoryStorage() });
    const { code } = standIns.wechat.issue({ appId: SOCIAL.wechat, subject: unique('wechat') });
    const viaWeChat = await wechat.auth.signInWithWeChat({ code, appId: SOCIAL.wechat });
    expect(viaWeChat.isNewUser).toBe(true);
    expect((await wechat.users.me()).userId).toBe(viaWeChat.userId);
  });

  it('links Google to an account signed in by code, lists it, signs in with it, and unlinks it; the last way in stays', async () => {
    const sent: string[] = [];
    const client = testClient(api.url, { storage: memoryStorage(), fetch: (input, init) => (sent.push(`${init.method ?? 'GET'} ${new URL(input).pathname}`), globalThis.fetch(input, init)) });
    const target = uniqueEmail('links');
    await client.auth.sendCode({ type: 'email', target });
    const account = await client.auth.verifyCode({ target, verifyCode: latestCode(api, target) });
    const sub = unique('linked');
    const googleToken = async (owner: typeof client) => {
      const { nonce, hashedNonce } = await owner.auth.socialNonce();
      const { idToken } = await standIns.google.issue({ clientId: SOCIAL.google, nonce: hashedNonce!, sub, email: `${sub}@example.org`, emailVerified: true });
      return { idToken, nonce };
    };
    // A token Google did not issue: refused as a credential, not taken for an expired session (no refresh, no retry).
    const forged = await client.users.identities.link({ provider: 'google', body: { idToken: 'not-a-google-token', nonce: (await client.auth.socialNonce()).nonce } }).catch((error: unknown) => error);
    expect(forged).toMatchObject({ status: 401, error: 'SOCIAL_CREDENTIAL_INVALID' });
    expect(sent.filter((line) => line.includes('/identities/') || line.includes('/token/refresh'))).toEqual(['POST /api/users/me/identities/google']);
    const linked = await client.users.identities.link({ provider: 'google', body: await googleToken(client) });
    expect(linked).toMatchObject({ provider: 'google', email: `${sub}@example.org` });
    expect((await client.users.identities.list()).map((identity) => identity.provider)).toEqual(['google']);

    // Another phone signs in with that Google account: the same person.
    const phone = testClient(api.url, { storage: memoryStorage() });
    expect(await phone.auth.signInWithGoogle(await googleToken(phone))).toMatchObject({ userId: account.userId, isNewUser: false });

    await client.users.identities.unlink('google');
    expect(await client.users.identities.list()).toEqual([]);
    // Its e-mail remains the way in of this account; a WeChat-only account cannot drop its only one.
    const wechat = testClient(api.url, { storage: memoryStorage() });
    await wechat.auth.signInWithWeChat({ code: standIns.wechat.issue({ appId: SOCIAL.wechat, subject: unique('only') }).code, appId: SOCIAL.wechat });
    const refused = await wechat.users.identities.unlink('wechat').catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 409, error: 'LAST_SIGN_IN_METHOD' });
  });
});
