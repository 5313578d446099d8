import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';

export const CODE_LENGTH = 6;
/** Wrong guesses after which a code is void (contract section 3). */
export const MAX_CODE_ATTEMPTS = 5;

/** Six decimal digits from the operating system's CSPRNG, leading zeros kept. */
export function generateCode(): string {
  return randomInt(0, 10 ** CODE_LENGTH)
    .toString()
    .padStart(CODE_LENGTH, '0');
}

/**
 * Codes are stored only as a keyed hash bound to their target: a copy of the table alone is not
 * enough to try the million possible codes, and a hash for one target is worthless for another.
 */
export function hashCode(key: Uint8Array, target: string, code: string): string {
  return createHmac('sha256', key).update(`${target}\n${code}`).digest('base64url');
}

/** Compares in constant time, so response timing tells nothing about how close a guess was. */
export function codeMatches(key: Uint8Array, target: string, code: string, storedHash: string): boolean {
  const expected = Buffer.from(storedHash, 'base64url');
  const actual = Buffer.from(hashCode(key, target, code), 'base64url');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
