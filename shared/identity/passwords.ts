import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { ScryptOptions } from 'node:crypto';
import { OWASP_SCRYPT_COST } from '../config';
import type { Config } from '../config';

/**
 * Password hashing with scrypt at OWASP's parameters (N=2^17, r=8, p=1), stored as a
 * self-describing string `$scrypt$ln=17,r=8,p=1$<salt>$<hash>` so the parameters can be raised
 * later and old hashes upgraded at the next login (see `needsRehash`).
 */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

export interface ScryptParameters {
  ln: number;
  r: number;
  p: number;
}

export const CURRENT_PARAMETERS: ScryptParameters = { ln: OWASP_SCRYPT_COST, r: 8, p: 1 };

/**
 * The parameters this deployment hashes with: OWASP's, or a lower cost (PASSWORD_HASH_COST) that
 * only a local test server may set, for tests that are not about hashing.
 */
export const hashingParameters = (config: Pick<Config, 'PASSWORD_HASH_COST'>): ScryptParameters =>
  config.PASSWORD_HASH_COST === CURRENT_PARAMETERS.ln ? CURRENT_PARAMETERS : { ...CURRENT_PARAMETERS, ln: config.PASSWORD_HASH_COST };
const SALT_BYTES = 16;
const KEY_BYTES = 32;
const FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([\w-]+)\$([\w-]+)$/;

const derive = (password: string, salt: Buffer, params: ScryptParameters, length: number) =>
  new Promise<Buffer>((resolve, reject) => {
    const options: ScryptOptions = {
      N: 2 ** params.ln,
      r: params.r,
      p: params.p,
      // scrypt needs 128 * N * r bytes; Node's default ceiling (32 MiB) is below OWASP's parameters.
      maxmem: 256 * 2 ** params.ln * params.r,
    };
    scrypt(password.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });

const encode = (params: ScryptParameters, salt: Buffer, key: Buffer) =>
  `$scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;

export async function hashPassword(password: string, params: ScryptParameters = CURRENT_PARAMETERS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  return encode(params, salt, await derive(password, salt, params, KEY_BYTES));
}

function decode(stored: string) {
  const match = FORMAT.exec(stored);
  if (!match) return undefined;
  const [, ln, r, p, salt, key] = match;
  return {
    params: { ln: Number(ln), r: Number(r), p: Number(p) },
    salt: Buffer.from(salt!, 'base64url'),
    key: Buffer.from(key!, 'base64url'),
  };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const decoded = decode(stored);
  if (!decoded) return false;
  const actual = await derive(password, decoded.salt, decoded.params, decoded.key.length);
  return timingSafeEqual(actual, decoded.key);
}

export function needsRehash(stored: string, params: ScryptParameters = CURRENT_PARAMETERS): boolean {
  const decoded = decode(stored);
  return !decoded || decoded.params.ln < params.ln || decoded.params.r < params.r || decoded.params.p < params.p;
}

/**
 * A hash of a random password nobody knows, at the current parameters. Logins for unknown
 * accounts (or accounts without a password) verify against it, so they cost the same time as
 * real ones and answer the same.
 */
export const DUMMY_PASSWORD_HASH =
  '$scrypt$ln=17,r=8,p=1$3Y8d2l0tWw7uXo1QpGm0Yw$k1mA3yN0iV8cQ5rJ6bL2dT9pX4sE7hU0fZ3wO1gR8nA';

const dummies = new Map<number, Promise<string>>([[CURRENT_PARAMETERS.ln, Promise.resolve(DUMMY_PASSWORD_HASH)]]);

/** DUMMY_PASSWORD_HASH at the given parameters (made once per process for a test server's lower cost). */
export function dummyPasswordHash(params: ScryptParameters): Promise<string> {
  let dummy = dummies.get(params.ln);
  if (!dummy) dummies.set(params.ln, (dummy = hashPassword(randomBytes(24).toString('base64url'), params)));
  return dummy;
}
