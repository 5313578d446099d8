import { SignJWT, base64url, exportPKCS8, exportSPKI, generateKeyPair, importJWK } from 'jose';
import type { CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config';
import type { Config } from '../../shared/config';
import { ProviderUnavailableError, SocialCredentialInvalidError } from '../../shared/errors';
import { exchangeAppleCode, openAppleToken, revokeAppleToken, sealAppleToken } from '../../shared/identity/social/apple-client';
import { verifyAppleIdentityToken, verifyGoogleIdToken } from '../../shared/identity/social/id-tokens';
import { issueNonce, nonceHash, readNonce } from '../../shared/identity/social/nonces';
import { exchangeWeChatCode } from '../../shared/identity/social/wechat-client';
import type { ProviderSecrets } from '../../shared/ports/provider-secrets';
import { startProviderStandIns } from '../../infra/local/provider-stand-ins';
import type { ProviderStandIns } from '../../infra/local/provider-stand-ins';

/**
 * The providers' protocols, against the stand-ins (infra/local/provider-stand-ins.ts) over HTTP:
 * strict verification of Apple's and Google's tokens, their key sets' caching and refetching,
 * Apple's code exchange and revocation with a client secret minted per call, WeChat's exchange
 * and its errors in a 200. The sign-in endpoints themselves: test/integration/social-sign-in.test.ts.
 */
const APPLE_CLIENT = 'com.example.captions';
const GOOGLE_CLIENT = 'ios-client.apps.googleusercontent.com';
const WECHAT_APP = 'wx1111111111111111';
const WECHAT_SECRET = 'wechat-secret-1';

let standIns: ProviderStandIns;
let secrets: ProviderSecrets;
let counter = 0;

/** A config whose key set addresses are new to this process (jose's key sets live at module scope, per address). */
function freshConfig(overrides: Record<string, string> = {}): Config {
  counter++;
  return parseConfig({
    TABLE_NAME: 'unused',
    APPLE_CLIENT_IDS: `${APPLE_CLIENT},com.example.captions.web`,
    APPLE_TEAM_ID: standIns.apple.teamId,
    APPLE_KEY_ID: standIns.apple.keyId,
    APPLE_API_URL: `${standIns.url}/run-${counter}/apple`,
    GOOGLE_CLIENT_IDS: `${GOOGLE_CLIENT},web-client.apps.googleusercontent.com`,
    GOOGLE_JWKS_URL: `${standIns.url}/run-${counter}/google/oauth2/v3/certs`,
    WECHAT_APP_IDS: WECHAT_APP,
    WECHAT_API_URL: standIns.wechatUrl,
    ...overrides,
  });
}

const key = new Uint8Array(32).fill(7);
const now = () => new Date();
const nonceNow = () => issueNonce(key, Math.floor(Date.now() / 1000));

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SocialCredentialInvalidError);
  return String((error as SocialCredentialInvalidError).cause);
}

beforeAll(async () => {
  standIns = await startProviderStandIns({ appleClientId: APPLE_CLIENT, googleClientId: GOOGLE_CLIENT, wechatApps: { [WECHAT_APP]: WECHAT_SECRET } });
  secrets = { applePrivateKey: standIns.apple.privateKeyPem, wechatAppSecrets: { [WECHAT_APP]: WECHAT_SECRET } };
});
afterAll(() => standIns.close());

describe('nonces', () => {
  it('are signed, expire after 10 minutes, and refuse their hash in their place', () => {
    const issued = issueNonce(key, 1_000);
    expect(readNonce(key, issued, 1_001)).toMatchObject({ nonce: { expiresAt: 1_600 } });
    expect(readNonce(key, issued, 1_600)).toEqual({ refused: 'nonce expired' });
    expect(readNonce(new Uint8Array(32), issued, 1_001)).toEqual({ refused: 'nonce not issued by this service' });
    expect(readNonce(key, nonceHash(issued), 1_001)).toEqual({ refused: 'nonce malformed (its hash was sent instead of the nonce)' });
    expect(nonceHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('Google ID tokens', () => {
  it('verifies a genuine token, with email_verified and hd', async () => {
    const cfg = freshConfig();
    const nonce = nonceNow();
    const { idToken } = await standIns.google.issue({ sub: '1001', clientId: GOOGLE_CLIENT, email: 'Ann@Corp.example', hd: 'corp.example', nonce: nonceHash(nonce) });
    await expect(verifyGoogleIdToken(cfg, now(), idToken, nonce)).resolves.toEqual({
      provider: 'google',
      subject: '1001',
      clientId: GOOGLE_CLIENT,
      email: 'ann@corp.example',
      emailVerified: true,
      privateEmail: false,
      hostedDomain: 'corp.example',
    });
  });

  it('refuses forged tokens: an attacker key with a real kid, alg none, HS256 keyed with the public key', async () => {
    const cfg = freshConfig();
    const nonce = nonceNow();
    const realKid = standIns.google.keys.current.kid;
    const claims = { iss: 'https://accounts.google.com', aud: GOOGLE_CLIENT, sub: '1002', nonce: nonceHash(nonce), email: 'x@gmail.com', email_verified: true };
    const attacker = await generateKeyPair('RS256');
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: realKid }).setIssuedAt().setExpirationTime('10m').sign(attacker.privateKey);
    expect(await refusal(verifyGoogleIdToken(cfg, now(), forged, nonce))).toMatch(/signature verification failed/);

    const unsigned = `${base64url.encode(JSON.stringify({ alg: 'none', kid: realKid }))}.${base64url.encode(JSON.stringify({ ...claims, iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 600 }))}.`;
    expect(await refusal(verifyGoogleIdToken(cfg, now(), unsigned, nonce))).toMatch(/alg/i);

    const publicPem = new TextEncoder().encode(await exportSPKI((await importJWK(standIns.google.keys.current.jwk, 'RS256')) as CryptoKey));
    const hmac = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: realKid }).setIssuedAt().setExpirationTime('10m').sign(publicPem);
    expect(await refusal(verifyGoogleIdToken(cfg, now(), hmac, nonce))).toMatch(/alg/i);
  });

  it('refuses another app’s audience or azp, another issuer, an expired token and a token from the future', async () => {
    const cfg = freshConfig();
    const nonce = nonceNow();
    const hash = nonceHash(nonce);
    const other = await standIns.google.issue({ sub: '1', clientId: 'someone-else.apps.googleusercontent.com', nonce: hash });
    expect(await refusal(verifyGoogleIdToken(cfg, now(), other.idToken, nonce))).toMatch(/aud/);
    const otherAzp = await standIns.google.issue({ sub: '1', clientId: GOOGLE_CLIENT, azp: 'someone-else', nonce: hash });
    expect(await refusal(verifyGoogleIdToken(cfg, now(), otherAzp.idToken, nonce))).toMatch(/azp/);
    const expired = await standIns.google.issue({ sub: '1', clientId: GOOGLE_CLIENT, nonce: hash, lifetimeSeconds: -61 });
    expect(await refusal(verifyGoogleIdToken(cfg, now(), expired.idToken, nonce))).toMatch(/exp/);
    // Within the 60 s of skew, an expiry just passed is still accepted.
    const justExpired = await standIns.google.issue({ sub: '1', clientId: GOOGLE_CLIENT, nonce: hash, lifetimeSeconds: -30 });
    await expect(verifyGoogleIdToken(cfg, now(), justExpired.idToken, nonce)).resolves.toMatchObject({ subject: '1' });
    const fresh = await standIns.google.issue({ sub: '1', clientId: GOOGLE_CLIENT, nonce: hash });
    expect(await refusal(verifyGoogleIdToken(cfg, new Date(Date.now() - 5 * 60_000), fresh.idToken, nonce))).toMatch(/iat/);
    // An Apple token is not a Google one, whatever its signature.
    const apple = await standIns.apple.issue({ sub: '1', clientId: GOOGLE_CLIENT, nonce: hash });
    expect(await refusal(verifyGoogleIdToken(cfg, now(), apple.identityToken, nonce))).toMatch(/no applicable key|iss/);
  });

  it('refuses a mismatched nonce and a token that carries the nonce itself', async () => {
    const cfg = freshConfig();
    const nonce = nonceNow();
    const mismatched = await standIns.google.issue({ sub: '1', clientId: GOOGLE_CLIENT, nonce: nonceHash(nonceNow()) });
    expect(await refusal(verifyGoogleIdToken(cfg, now(), mismatched.idToken, nonce))).toBe('nonce does not match the token');
    const raw = await standIns.google.issue({ sub: '1', clientId: GOOGLE_CLIENT, nonce });
    expect(await refusal(verifyGoogleIdToken(cfg, now(), raw.idToken, nonce))).toBe('the token carries the nonce itself, not its hash');
    const none = await standIns.google.issue({ sub: '1', clientId: GOOGLE_CLIENT });
    expect(await refusal(verifyGoogleIdToken(cfg, now(), none.idToken, nonce))).toMatch(/nonce/);
  });
});

describe('provider key sets', () => {
  it('a warm verifier does not fetch again; a rotation refetches once; a flood of unknown kids stays within one fetch per cooldown', async () => {
    const cfg = freshConfig({ PROVIDER_KEYS_COOLDOWN_SECONDS: '1' });
    const nonce = nonceNow();
    const hash = nonceHash(nonce);
    const before = standIns.google.keys.fetches;
    for (let i = 0; i < 3; i++) {
      const { idToken } = await standIns.google.issue({ sub: '7', clientId: GOOGLE_CLIENT, nonce: hash });
      await verifyGoogleIdToken(cfg, now(), idToken, nonce);
    }
    expect(standIns.google.keys.fetches - before).toBe(1);

    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await standIns.google.keys.rotate();
    const { idToken: rotated } = await standIns.google.issue({ sub: '7', clientId: GOOGLE_CLIENT, nonce: hash });
    await expect(verifyGoogleIdToken(cfg, now(), rotated, nonce)).resolves.toMatchObject({ subject: '7' });
    expect(standIns.google.keys.fetches - before).toBe(2);

    // Within the cooldown of that fetch, tokens with made-up kids fetch nothing more.
    const attacker = await generateKeyPair('RS256');
    const flood = await Promise.all(
      Array.from({ length: 25 }, (_, index) =>
        new SignJWT({ iss: 'https://accounts.google.com', aud: GOOGLE_CLIENT, sub: '7', nonce: hash })
          .setProtectedHeader({ alg: 'RS256', kid: `made-up-${index}` })
          .setIssuedAt()
          .setExpirationTime('10m')
          .sign(attacker.privateKey),
      ),
    );
    const outcomes = await Promise.allSettled(flood.map((token) => verifyGoogleIdToken(cfg, now(), token, nonce)));
    expect(outcomes.every((outcome) => outcome.status === 'rejected' && outcome.reason instanceof SocialCredentialInvalidError)).toBe(true);
    expect(standIns.google.keys.fetches - before).toBeLessThanOrEqual(3);
  });

  it('unreachable with nothing cached: 503 PROVIDER_UNAVAILABLE with a wait; with keys cached, sign-ins go on', async () => {
    const cfg = freshConfig({ PROVIDER_KEYS_COOLDOWN_SECONDS: '0' });
    const nonce = nonceNow();
    const { idToken } = await standIns.google.issue({ sub: '8', clientId: GOOGLE_CLIENT, nonce: nonceHash(nonce) });
    standIns.google.keys.unreachable = true;
    try {
      const error = await verifyGoogleIdToken(cfg, now(), idToken, nonce).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ProviderUnavailableError);
      expect((error as ProviderUnavailableError).retryAfterSeconds).toBeGreaterThan(0);
    } finally {
      standIns.google.keys.unreachable = false;
    }
    await expect(verifyGoogleIdToken(cfg, now(), idToken, nonce)).resolves.toMatchObject({ subject: '8' });
    // Cached now; a rotation while the provider is down refetches, fails, and the cached keys still verify the old key's tokens.
    standIns.google.keys.unreachable = true;
    try {
      const madeUp = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: 'unknown' }).sign((await generateKeyPair('RS256')).privateKey);
      await expect(verifyGoogleIdToken(cfg, now(), madeUp, nonce)).rejects.toBeInstanceOf(SocialCredentialInvalidError);
      await expect(verifyGoogleIdToken(cfg, now(), idToken, nonce)).resolves.toMatchObject({ subject: '8' });
    } finally {
      standIns.google.keys.unreachable = false;
    }
  });
});

describe('Apple', () => {
  it('verifies identity tokens with Apple’s string flags, checks the issuer whatever the address', async () => {
    const cfg = freshConfig();
    const nonce = nonceNow();
    const { identityToken } = await standIns.apple.issue({ sub: '000123.abc', clientId: APPLE_CLIENT, email: 'x@privaterelay.appleid.com', emailVerified: true, isPrivateEmail: true, nonce: nonceHash(nonce) });
    await expect(verifyAppleIdentityToken(cfg, now(), identityToken, nonce)).resolves.toMatchObject({
      provider: 'apple',
      subject: '000123.abc',
      email: 'x@privaterelay.appleid.com',
      emailVerified: true,
      privateEmail: true,
    });
    const google = await standIns.google.issue({ sub: '1', clientId: APPLE_CLIENT, nonce: nonceHash(nonce) });
    expect(await refusal(verifyAppleIdentityToken(cfg, now(), google.idToken, nonce))).toMatch(/no applicable key|iss/);
  });

  it('exchanges a code with a client secret minted per call, refuses it twice or for another person, and revokes', async () => {
    const cfg = freshConfig();
    const { authorizationCode } = await standIns.apple.issue({ sub: '000124.abc', clientId: APPLE_CLIENT });
    const refreshToken = await exchangeAppleCode(cfg, secrets, now(), APPLE_CLIENT, authorizationCode, '000124.abc');
    expect(standIns.apple.liveRefreshTokens.get(refreshToken)).toBe(APPLE_CLIENT);
    expect(await refusal(exchangeAppleCode(cfg, secrets, now(), APPLE_CLIENT, authorizationCode, '000124.abc'))).toMatch(/invalid_grant/);
    const other = await standIns.apple.issue({ sub: '000125.abc', clientId: APPLE_CLIENT });
    expect(await refusal(exchangeAppleCode(cfg, secrets, now(), APPLE_CLIENT, other.authorizationCode, '000124.abc'))).toMatch(/another person/);

    standIns.apple.failRevocations(1);
    expect(await revokeAppleToken(cfg, secrets, now(), APPLE_CLIENT, refreshToken)).toBe(false);
    expect(await revokeAppleToken(cfg, secrets, now(), APPLE_CLIENT, refreshToken)).toBe(true);
    expect(standIns.apple.liveRefreshTokens.has(refreshToken)).toBe(false);
    // Apple answers 200 for a token already invalid.
    expect(await revokeAppleToken(cfg, secrets, now(), APPLE_CLIENT, refreshToken)).toBe(true);
  });

  it('refuses a client secret signed with another key (invalid_client is a deployment fault, not a 401)', async () => {
    const cfg = freshConfig();
    const { authorizationCode } = await standIns.apple.issue({ sub: '000126.abc', clientId: APPLE_CLIENT });
    const wrongKey = await exportPKCS8((await generateKeyPair('ES256', { extractable: true })).privateKey);
    const error = await exchangeAppleCode(cfg, { applePrivateKey: wrongKey }, now(), APPLE_CLIENT, authorizationCode, '000126.abc').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(SocialCredentialInvalidError);
    expect((error as Error).message).toMatch(/invalid_client/);
  });

  it('keeps refresh tokens sealed under the derived key', () => {
    const sealed = sealAppleToken(key, 'r.secret-token');
    expect(sealed).not.toContain('secret-token');
    expect(openAppleToken(key, sealed)).toBe('r.secret-token');
    expect(() => openAppleToken(new Uint8Array(32), sealed)).toThrow();
  });
});

describe('WeChat', () => {
  it('exchanges a code for the unionid, and answers 40029 and 40163 in a 200 as a refused credential', async () => {
    const cfg = freshConfig();
    const { code } = standIns.wechat.issue({ appId: WECHAT_APP, subject: 'person-1' });
    const identity = await exchangeWeChatCode(cfg, secrets, WECHAT_APP, code);
    expect(identity.subject).toMatch(/^u:/);
    expect(await refusal(exchangeWeChatCode(cfg, secrets, WECHAT_APP, code))).toMatch(/40163/);
    expect(await refusal(exchangeWeChatCode(cfg, secrets, WECHAT_APP, 'made-up'))).toMatch(/40029/);
    const withoutUnion = standIns.wechat.issue({ appId: WECHAT_APP, subject: 'person-2', withUnionId: false });
    expect((await exchangeWeChatCode(cfg, secrets, WECHAT_APP, withoutUnion.code)).subject).toBe(`o:${WECHAT_APP}:${standIns.wechat.openidOf(WECHAT_APP, 'person-2')}`);
  });

  it('a wrong app secret is a deployment fault, not the person’s credential', async () => {
    const cfg = freshConfig();
    const { code } = standIns.wechat.issue({ appId: WECHAT_APP, subject: 'person-3' });
    const error = await exchangeWeChatCode(cfg, { wechatAppSecrets: { [WECHAT_APP]: 'wrong' } }, WECHAT_APP, code).catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(SocialCredentialInvalidError);
    expect((error as Error).message).toMatch(/40125/);
  });
});

describe('the stand-ins’ issuing page', () => {
  it('serves a form per provider and issues over HTTP', async () => {
    const page = await fetch(`${standIns.url}/`);
    expect(await page.text()).toMatch(/apple[\s\S]*google[\s\S]*wechat/);
    const issued = (await (await fetch(`${standIns.url}/issue/google`, { method: 'POST', body: JSON.stringify({ sub: '42', email: 'a@gmail.com' }) })).json()) as { idToken: string };
    expect(issued.idToken.split('.')).toHaveLength(3);
    const code = (await (await fetch(`${standIns.url}/issue/wechat`, { method: 'POST', body: JSON.stringify({ subject: 'p' }) })).json()) as { code: string };
    expect(code.code).toBeTruthy();
  });
});
