import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { UnauthorizedError } from '../../shared/errors';
import { CLOCK_TOLERANCE_SECONDS, issueToken, verifyToken } from '../../shared/identity/tokens';
import { deriveKeys } from '../../shared/ports/secrets';

const { tokenSigningKey: key, codeHashKey } = deriveKeys('unit-test-root-secret-of-at-least-32-characters');
const settings = { issuer: 'captioning-api', audience: 'captioning-app', lifetimeMs: 86_400_000 };
const now = new Date('2026-01-29T10:30:00.400Z');
const nowSeconds = Math.floor(now.getTime() / 1000);
const user = { userId: 42, tokenVersion: 3 };

describe('issueToken / verifyToken', () => {
  it('round-trips the user, its token version and the expiry', async () => {
    const { token, expiresAt } = await issueToken(key, user, now, settings);
    expect(expiresAt).toBe(nowSeconds + 86_400);
    expect(await verifyToken(key, token, now, settings)).toEqual({ userId: 42, tokenVersion: 3, expiresAt });
  });

  it('carries sub, iat, exp, iss, aud, jti and ver, signed with HS256', async () => {
    const { token } = await issueToken(key, user, now, settings);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ sub: '42', iat: nowSeconds, exp: nowSeconds + 86_400, iss: 'captioning-api', aud: 'captioning-app', ver: 3 });
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('carries the session as `sid` and never outlives the session\'s end', async () => {
    const sessionId = 'p3Xq9vK2T0a8YbWcLm4N1g';
    const { token, expiresAt } = await issueToken(key, { ...user, sessionId }, now, settings, nowSeconds + 600);
    expect(expiresAt).toBe(nowSeconds + 600);
    expect(decodeJwt(token)).toMatchObject({ sid: sessionId, exp: nowSeconds + 600 });
    expect(await verifyToken(key, token, now, settings)).toEqual({ userId: 42, tokenVersion: 3, expiresAt, sessionId });
  });

  it('refuses a `sid` that is not a session id of ours', async () => {
    for (const sid of [42, '', 'short', 'p3Xq9vK2T0a8YbWcLm4N1g!', 'p3Xq9vK2T0a8YbWcLm4N1gg']) {
      const forged = await new SignJWT({ ver: 3, sid })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject('42')
        .setIssuer(settings.issuer)
        .setAudience(settings.audience)
        .setIssuedAt(nowSeconds)
        .setExpirationTime(nowSeconds + 60)
        .setJti('j')
        .sign(key);
      const error = await verifyToken(key, forged, now, settings).catch((caught: unknown) => caught);
      expect(error, String(sid)).toBeInstanceOf(UnauthorizedError);
    }
  });

  it('gives every token its own jti', async () => {
    const [a, b] = await Promise.all([issueToken(key, user, now, settings), issueToken(key, user, now, settings)]);
    expect(decodeJwt(a.token).jti).not.toBe(decodeJwt(b.token).jti);
  });

  it('follows the configured lifetime', async () => {
    const { token } = await issueToken(key, user, now, { ...settings, lifetimeMs: 60_000 });
    expect(decodeJwt(token).exp).toBe(nowSeconds + 60);
  });

  it('allows at most 30 s of clock tolerance', async () => {
    expect(CLOCK_TOLERANCE_SECONDS).toBeLessThanOrEqual(30);
    const { token, expiresAt } = await issueToken(key, user, now, { ...settings, lifetimeMs: 60_000 });
    await expect(verifyToken(key, token, new Date((expiresAt + 10) * 1000), settings)).resolves.toBeDefined();
    await expect(verifyToken(key, token, new Date((expiresAt + 31) * 1000), settings)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('refuses another key, issuer or audience with a reason-free UnauthorizedError', async () => {
    const { token } = await issueToken(key, user, now, settings);
    // One at a time: a refusal made before its catch is attached is an unhandled rejection.
    for (const attempt of [
      () => verifyToken(codeHashKey, token, now, settings),
      () => verifyToken(key, token, now, { ...settings, issuer: 'someone-else' }),
      () => verifyToken(key, token, now, { ...settings, audience: 'someone-else' }),
    ]) {
      const error = await attempt().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UnauthorizedError);
      expect((error as Error).message).toBe('Unauthorized');
    }
  });

  it('refuses a token without ver or with a non-numeric sub', async () => {
    const base = () =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer(settings.issuer)
        .setAudience(settings.audience)
        .setIssuedAt(nowSeconds)
        .setExpirationTime(nowSeconds + 60)
        .setJti('j');
    const withoutVersion = await base().setSubject('42').sign(key);
    const namedSubject = await new SignJWT({ ver: 0 })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(settings.issuer)
      .setAudience(settings.audience)
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + 60)
      .setJti('j')
      .setSubject('admin')
      .sign(key);
    await expect(verifyToken(key, withoutVersion, now, settings)).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(verifyToken(key, namedSubject, now, settings)).rejects.toBeInstanceOf(UnauthorizedError);
  });
});

describe('deriveKeys', () => {
  it('derives distinct signing and code keys, and refuses a short root secret', () => {
    expect(Buffer.from(key).equals(Buffer.from(codeHashKey))).toBe(false);
    expect(key).toHaveLength(32);
    expect(() => deriveKeys('short')).toThrow();
  });
});
