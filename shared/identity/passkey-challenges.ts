import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The challenges of passkey ceremonies, stateless: the options request writes nothing (the
 * sign-in one is public, so writing would let anyone fill the table). A challenge is signed by
 * the service (HMAC-SHA256, key derived from the root secret) and carries what verifying needs:
 *
 *   `pk1.<ceremony>.<userId>.<userHandle>.<expiresAt>.<nonce>.<mac>`
 *
 * - the ceremony, so a challenge issued for one ceremony is refused by the other;
 * - the account (registration; 0 for sign-in, which names no one), so a registration challenge
 *   serves only the account that asked for it, and the user handle its options gave the platform;
 * - its expiry (CHALLENGE_TTL_SECONDS after issue), epoch seconds;
 * - 128 random bits, which name it when it is spent (shared/db/passkeys-repository.ts
 *   spendChallenge): a challenge is accepted once, ever.
 *
 * The authenticator signs over these bytes (the client sends them back base64url in
 * clientDataJSON), so a challenge cannot be altered without breaking both MACs.
 */
export type Ceremony = 'registration' | 'authentication';

export const CHALLENGE_TTL_SECONDS = 300;

const TAGS: Record<Ceremony, string> = { registration: 'reg', authentication: 'auth' };
const FORMAT = /^pk1\.(reg|auth)\.(0|[1-9]\d{0,15})\.([A-Za-z0-9_-]{0,86})\.(\d{1,12})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;
/** Far longer than any challenge issued here: anything longer is refused before it is parsed. */
const MAX_CHALLENGE_LENGTH = 512;

export interface Challenge {
  ceremony: Ceremony;
  /** 0 for sign-in. */
  userId: number;
  /** base64url; empty for sign-in. */
  userHandle: string;
  expiresAt: number;
  nonce: string;
}

const macOf = (key: Uint8Array, payload: string) => createHmac('sha256', key).update(payload).digest();

/** A new challenge, base64url as the options' JSON carries it. */
export function issueChallenge(key: Uint8Array, subject: Pick<Challenge, 'ceremony' | 'userId' | 'userHandle'>, nowSeconds: number): string {
  const payload = [
    'pk1',
    TAGS[subject.ceremony],
    subject.userId,
    subject.userHandle,
    nowSeconds + CHALLENGE_TTL_SECONDS,
    randomBytes(16).toString('base64url'),
  ].join('.');
  return Buffer.from(`${payload}.${macOf(key, payload).toString('base64url')}`, 'utf8').toString('base64url');
}

/**
 * The challenge a client sent back (base64url, as in clientDataJSON), if this service issued it
 * for `ceremony` and it has not expired; otherwise the reason it is refused, for the log.
 */
export function readChallenge(
  key: Uint8Array,
  encoded: string,
  ceremony: Ceremony,
  nowSeconds: number,
): { challenge: Challenge } | { refused: string } {
  if (encoded.length > MAX_CHALLENGE_LENGTH || !/^[A-Za-z0-9_-]*$/.test(encoded)) return { refused: 'challenge malformed' };
  const match = FORMAT.exec(Buffer.from(encoded, 'base64url').toString('utf8'));
  if (!match) return { refused: 'challenge malformed' };
  const [, tag, userId, userHandle, expiresAt, nonce, mac] = match as unknown as [string, string, string, string, string, string, string];
  const payload = ['pk1', tag, userId, userHandle, expiresAt, nonce].join('.');
  const presented = Buffer.from(mac, 'base64url');
  const expected = macOf(key, payload);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return { refused: 'challenge not issued by this service' };
  if (tag !== TAGS[ceremony]) return { refused: `challenge of another ceremony (${tag})` };
  if (Number(expiresAt) <= nowSeconds) return { refused: 'challenge expired' };
  return { challenge: { ceremony, userId: Number(userId), userHandle, expiresAt: Number(expiresAt), nonce } };
}
