import { randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { UnauthorizedError } from '../errors';
import { epochSeconds } from '../ports/clock';

/**
 * Access tokens: HS256 JWTs with `sub` (the userId as a string), `iat`, `exp`, `iss`, `aud`, `jti`
 * and `ver`, the account's token version (raised by a password reset or account deletion, which
 * ends every token issued before).
 */
export interface TokenSettings {
  issuer: string;
  audience: string;
  lifetimeMs: number;
}

export interface VerifiedToken {
  userId: number;
  tokenVersion: number;
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
  subject: { userId: number; tokenVersion: number },
  now: Date,
  settings: TokenSettings,
): Promise<{ token: string; expiresAt: number }> {
  const issuedAt = epochSeconds(now);
  const expiresAt = issuedAt + Math.floor(settings.lifetimeMs / 1000);
  const token = await new SignJWT({ ver: subject.tokenVersion })
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
  const { sub, ver, iat, exp } = payload;
  if (typeof sub !== 'string' || !/^[1-9]\d{0,15}$/.test(sub)) throw refuse();
  if (typeof ver !== 'number' || !Number.isSafeInteger(ver) || ver < 0) throw refuse();
  // jose checks `iat` only when a maximum age is given: a token issued in the future is forged.
  if (typeof iat !== 'number' || iat > epochSeconds(now) + CLOCK_TOLERANCE_SECONDS) throw refuse();
  return { userId: Number(sub), tokenVersion: ver, expiresAt: exp! };
}
