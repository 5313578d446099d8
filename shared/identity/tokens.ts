import { randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { UnauthorizedError } from '../errors';
import { epochSeconds } from '../ports/clock';
import { SESSION_ID_PATTERN } from './refresh-tokens';

/**
 * Access tokens: HS256 JWTs with `sub` (the userId as a string), `iat`, `exp`, `iss`, `aud`, `jti`
 * and `ver`, the account's token version (raised by a password reset or account deletion, which
 * ends every token issued before), and `sid`, the session the token belongs to: ending the session
 * (sign-out, another device ending it, refresh-token reuse) ends its access tokens.
 */
export interface TokenSettings {
  issuer: string;
  audience: string;
  lifetimeMs: number;
}

export interface VerifiedToken {
  userId: number;
  tokenVersion: number;
  /**
   * The session; absent only in tokens issued before sessions existed, which stay valid until
   * they expire (at most TOKEN_TTL_MS after the deployment that introduced sessions).
   */
  sessionId?: string;
  /** Expiry, epoch seconds. */
  expiresAt: number;
}

const ALGORITHM = 'HS256';
/** The contract allows at most 30 s of clock skew between issuer and verifier. */
export const CLOCK_TOLERANCE_SECONDS = 30;
/** A real token is about 300 characters; anything far larger is refused before it is parsed. */
export const MAX_TOKEN_LENGTH = 2048;

export async function issueToken(
  key: Uint8Array,
  subject: { userId: number; tokenVersion: number; sessionId?: string },
  now: Date,
  settings: TokenSettings,
  /** Epoch seconds the token may not outlive (its session's end). */
  notAfter = Infinity,
): Promise<{ token: string; expiresAt: number }> {
  const issuedAt = epochSeconds(now);
  const expiresAt = Math.min(issuedAt + Math.floor(settings.lifetimeMs / 1000), notAfter);
  const claims = subject.sessionId === undefined ? { ver: subject.tokenVersion } : { ver: subject.tokenVersion, sid: subject.sessionId };
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setSubject(String(subject.userId))
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .setJti(randomUUID())
    .sign(key);
  return { token, expiresAt };
}

const refuse = (cause?: unknown) => new UnauthorizedError('Unauthorized', { cause });

/**
 * Verifies every part of a token explicitly: the algorithm list, issuer, audience, expiry, not
 * before, issue time and the shape of the claims. Any failure is the same UnauthorizedError: the
 * caller is never told which check refused it.
 */
export async function verifyToken(key: Uint8Array, token: string, now: Date, settings: TokenSettings): Promise<VerifiedToken> {
  if (token.length > MAX_TOKEN_LENGTH) throw refuse();
  let payload;
  try {
    ({ payload } = await jwtVerify(token, key, {
      algorithms: [ALGORITHM],
      issuer: settings.issuer,
      audience: settings.audience,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: now,
      requiredClaims: ['sub', 'iat', 'exp', 'jti', 'ver'],
    }));
  } catch (error) {
    throw refuse(error);
  }
  const { sub, ver, iat, exp, sid } = payload;
  if (typeof sub !== 'string' || !/^[1-9]\d{0,15}$/.test(sub)) throw refuse();
  if (typeof ver !== 'number' || !Number.isSafeInteger(ver) || ver < 0) throw refuse();
  if (sid !== undefined && (typeof sid !== 'string' || !SESSION_ID_PATTERN.test(sid))) throw refuse();
  // jose checks `iat` only when a maximum age is given: a token issued in the future is forged.
  if (typeof iat !== 'number' || iat > epochSeconds(now) + CLOCK_TOLERANCE_SECONDS) throw refuse();
  return { userId: Number(sub), tokenVersion: ver, expiresAt: exp!, ...(sid === undefined ? {} : { sessionId: sid }) };
}
