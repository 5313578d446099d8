import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The nonces of social sign-ins (docs/social-sign-in.md), stateless as the passkey challenges
 * (shared/identity/passkey-challenges.ts): `POST /api/auth/social/nonce` writes nothing (it is
 * public), the nonce is signed by the service (HMAC-SHA256, key derived from the root secret):
 *
 *   `sn1.<expiresAt>.<id>.<mac>`
 *
 * The app gives the provider the nonce's SHA-256 (hex), which comes back as the token's `nonce`
 * claim, and sends the service the nonce itself; its 128 random bits (`id`) name it when it is
 * spent (a conditional put in the sign-in's transaction: usable once, ever).
 */
export const NONCE_TTL_SECONDS = 600;

const FORMAT = /^sn1\.(\d{1,12})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

export interface SocialNonce {
  id: string;
  expiresAt: number;
}

const macOf = (key: Uint8Array, payload: string) => createHmac('sha256', key).update(payload).digest();

export function issueNonce(key: Uint8Array, nowSeconds: number): string {
  const payload = `sn1.${nowSeconds + NONCE_TTL_SECONDS}.${randomBytes(16).toString('base64url')}`;
  return `${payload}.${macOf(key, payload).toString('base64url')}`;
}

/** What the provider's token must carry: the SHA-256 of the nonce, lower-case hex. */
export const nonceHash = (nonce: string): string => createHash('sha256').update(nonce, 'utf8').digest('hex');

/** The nonce, if this service issued it and it has not expired; otherwise why not (for the log). */
export function readNonce(key: Uint8Array, nonce: string, nowSeconds: number): { nonce: SocialNonce } | { refused: string } {
  const match = FORMAT.exec(nonce);
  // A 64-hex value is most likely the hash sent where the nonce belongs.
  if (!match) return { refused: /^[0-9a-f]{64}$/.test(nonce) ? 'nonce malformed (its hash was sent instead of the nonce)' : 'nonce malformed' };
  const [, expiresAt, id, mac] = match as unknown as [string, string, string, string];
  const presented = Buffer.from(mac, 'base64url');
  const expected = macOf(key, `sn1.${expiresAt}.${id}`);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return { refused: 'nonce not issued by this service' };
  if (Number(expiresAt) <= nowSeconds) return { refused: 'nonce expired' };
  return { nonce: { id, expiresAt: Number(expiresAt) } };
}
