import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Refresh tokens: `<userId>.<sessionId>.<generation>.<secret>`, opaque to the app.
 *
 * The secret part is HMAC-SHA256 (key derived from the root secret) of the session's seed, 256
 * random bits drawn at sign-in, and the token's generation, which every refresh raises. So a
 * token is never stored, not even hashed: the session item keeps only the seed and the current
 * generation, which are useless without the root secret, and the token of any generation can be
 * derived again. That is what lets a refresh inside the grace window answer exactly the token the
 * first refresh answered (REFRESH_GRACE_SECONDS), while a token of an older generation is known to
 * be a replay. The user and session ids in the clear only say where to look; the secret part is
 * what proves the token, compared in constant time.
 */
export interface RefreshTokenParts {
  userId: number;
  sessionId: string;
  generation: number;
  secret: string;
}

const SESSION_ID_BYTES = 16;
const SEED_BYTES = 32;
const FORMAT = /^([1-9]\d{0,15})\.([A-Za-z0-9_-]{22})\.(0|[1-9]\d{0,8})\.([A-Za-z0-9_-]{43})$/;
/** Longest well-formed token: anything longer is refused before the pattern runs. */
export const MAX_REFRESH_TOKEN_LENGTH = 16 + 1 + 22 + 1 + 9 + 1 + 43;

/** 128 random bits, URL-safe: names a session in URLs and in the access token's `sid` claim. */
export const newSessionId = (): string => randomBytes(SESSION_ID_BYTES).toString('base64url');

/** 256 random bits from the CSPRNG: the root of every refresh token of one session. */
export const newSessionSeed = (): string => randomBytes(SEED_BYTES).toString('base64url');

export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

function secretOf(key: Uint8Array, userId: number, sessionId: string, generation: number, seed: string): Buffer {
  return createHmac('sha256', key).update(`${userId}.${sessionId}.${generation}.${seed}`).digest();
}

/** The refresh token of one generation of a session. */
export function refreshTokenFor(key: Uint8Array, session: { userId: number; sessionId: string; seed: string }, generation: number): string {
  const secret = secretOf(key, session.userId, session.sessionId, generation, session.seed).toString('base64url');
  return `${session.userId}.${session.sessionId}.${generation}.${secret}`;
}

/** The parts of a well-formed token; undefined for anything else (proves nothing yet). */
export function parseRefreshToken(token: string): RefreshTokenParts | undefined {
  if (token.length > MAX_REFRESH_TOKEN_LENGTH) return undefined;
  const match = FORMAT.exec(token);
  if (!match) return undefined;
  const [, userId, sessionId, generation, secret] = match as unknown as [string, string, string, string, string];
  return { userId: Number(userId), sessionId, generation: Number(generation), secret };
}

/** Whether the token's secret is the one derived for its generation of this session's seed. */
export function refreshTokenMatches(key: Uint8Array, parts: RefreshTokenParts, seed: string): boolean {
  const expected = secretOf(key, parts.userId, parts.sessionId, parts.generation, seed);
  const presented = Buffer.from(parts.secret, 'base64url');
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}
