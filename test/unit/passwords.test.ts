import { beforeAll, describe, expect, it } from 'vitest';
import {
  CURRENT_PARAMETERS,
  DUMMY_PASSWORD_HASH,
  PASSWORD_MAX_LENGTH,
  dummyPasswordHash,
  hashingParameters,
  PASSWORD_MIN_LENGTH,
  hashPassword,
  needsRehash,
  verifyPassword,
} from '../../shared/identity/passwords';
import { newPasswordSchema, submittedPasswordSchema } from '../../shared/identity/password-schemas';

// scrypt at N=2^17 costs ~300 ms here: one hash at the real parameters, shared by the tests.
const password = 'correct horse battery';
let stored: string;
beforeAll(async () => {
  stored = await hashPassword(password);
});

const decode = (hash: string) => {
  const match = /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(hash);
  if (!match) throw new Error(`not a self-describing scrypt hash: ${hash}`);
  return {
    ln: Number(match[1]),
    r: Number(match[2]),
    p: Number(match[3]),
    salt: Buffer.from(match[4]!, 'base64url'),
    key: Buffer.from(match[5]!, 'base64url'),
  };
};

describe('hashPassword', () => {
  it('stores the OWASP parameters, a 16-byte salt and the key in a self-describing string', () => {
    expect(CURRENT_PARAMETERS).toEqual({ ln: 17, r: 8, p: 1 });
    const parts = decode(stored);
    expect(parts).toMatchObject({ ln: 17, r: 8, p: 1 });
    expect(parts.salt).toHaveLength(16);
    expect(parts.key.length).toBeGreaterThanOrEqual(32);
    expect(stored).not.toContain(password);
  });

  it('verifies the right password and refuses a wrong one', async () => {
    expect(await verifyPassword(password, stored)).toBe(true);
    expect(await verifyPassword('correct horse battery!', stored)).toBe(false);
  });

  it('salts every hash: the same password hashes differently twice (cheap parameters)', async () => {
    const weak = { ln: 10, r: 8, p: 1 };
    const [a, b] = await Promise.all([hashPassword(password, weak), hashPassword(password, weak)]);
    expect(a).not.toBe(b);
    expect(decode(a).salt.equals(decode(b).salt)).toBe(false);
  });

  it('treats a composed and a decomposed accent as the same password (NFC)', async () => {
    const weak = { ln: 10, r: 8, p: 1 };
    const hash = await hashPassword('caf\u00e9-latte', weak);
    expect(await verifyPassword('cafe\u0301-latte', hash)).toBe(true);
  });
});

describe('needsRehash', () => {
  it('is false for a hash at the current parameters', () => {
    expect(needsRehash(stored)).toBe(false);
  });

  it('is true for weaker parameters, and such a hash still verifies', async () => {
    const weaker = await hashPassword(password, { ln: 12, r: 8, p: 1 });
    expect(decode(weaker)).toMatchObject({ ln: 12, r: 8, p: 1 });
    expect(needsRehash(weaker)).toBe(true);
    expect(await verifyPassword(password, weaker)).toBe(true);
    expect(needsRehash(stored.replace('r=8', 'r=4'))).toBe(true);
  });

  it('is true for a string that is not a hash of ours', () => {
    expect(needsRehash('plaintext')).toBe(true);
    expect(needsRehash('$2b$12$abcdefghijklmnopqrstuv')).toBe(true);
  });
});

describe('DUMMY_PASSWORD_HASH', () => {
  it('decodes at the current parameters, so unknown accounts cost a real scrypt run', () => {
    const parts = decode(DUMMY_PASSWORD_HASH);
    expect(parts).toMatchObject(CURRENT_PARAMETERS);
    expect(parts.salt).toHaveLength(16);
    expect(parts.key).toHaveLength(decode(stored).key.length);
    // needsRehash is false only for a hash that decodes: verifyPassword then runs scrypt on it.
    expect(needsRehash(DUMMY_PASSWORD_HASH)).toBe(false);
  });

  it('verifies false for a guess', async () => {
    expect(await verifyPassword('password123', DUMMY_PASSWORD_HASH)).toBe(false);
  });
});

describe('password schemas', () => {
  it('new passwords: 8 to 128 characters', () => {
    expect([PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH]).toEqual([8, 128]);
    expect(newPasswordSchema.safeParse('a'.repeat(7)).success).toBe(false);
    expect(newPasswordSchema.safeParse('a'.repeat(8)).success).toBe(true);
    expect(newPasswordSchema.safeParse('a'.repeat(128)).success).toBe(true);
    expect(newPasswordSchema.safeParse('a'.repeat(129)).success).toBe(false);
  });

  it('submitted passwords: a 129-character password is refused before it reaches scrypt', () => {
    expect(submittedPasswordSchema.safeParse('a'.repeat(129)).success).toBe(false);
    expect(submittedPasswordSchema.safeParse('a'.repeat(128)).success).toBe(true);
    expect(submittedPasswordSchema.safeParse('').success).toBe(false);
    expect(submittedPasswordSchema.safeParse(12345678).success).toBe(false);
  });
});

describe('a test server\'s lower cost (PASSWORD_HASH_COST)', () => {
  it('hashes at OWASP\'s parameters by default and at the set cost otherwise, with a dummy at the same cost', async () => {
    expect(hashingParameters({ PASSWORD_HASH_COST: 17 })).toBe(CURRENT_PARAMETERS);
    expect(await dummyPasswordHash(CURRENT_PARAMETERS)).toBe(DUMMY_PASSWORD_HASH);
    const low = hashingParameters({ PASSWORD_HASH_COST: 10 });
    expect(low).toEqual({ ln: 10, r: 8, p: 1 });
    expect(decode(await hashPassword(password, low))).toMatchObject(low);
    // Unknown accounts still cost what a real login costs on that server.
    const dummy = await dummyPasswordHash(low);
    expect(decode(dummy)).toMatchObject(low);
    expect(await dummyPasswordHash(low)).toBe(dummy);
    expect(await verifyPassword(password, dummy)).toBe(false);
    // An OWASP hash is not "weaker" than the lower cost; a cost-10 hash is weaker than OWASP's.
    expect(needsRehash(stored, low)).toBe(false);
    expect(needsRehash(dummy)).toBe(true);
  });
});
