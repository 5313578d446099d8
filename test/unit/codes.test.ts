import * as crypto from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { CODE_LENGTH, codeMatches, generateCode, hashCode } from '../../shared/identity/codes';

// randomInt stays the real CSPRNG; the spy only lets one test pin a value to check the padding.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof crypto>();
  return { ...actual, randomInt: vi.fn(actual.randomInt), timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const key = new Uint8Array(32).fill(7);
const otherKey = new Uint8Array(32).fill(8);

describe('generateCode', () => {
  it('gives six decimal digits', () => {
    expect(CODE_LENGTH).toBe(6);
    for (let i = 0; i < 200; i++) expect(generateCode()).toMatch(/^\d{6}$/);
  });

  it('keeps leading zeros', () => {
    vi.mocked(crypto.randomInt).mockReturnValueOnce(42 as never);
    expect(generateCode()).toBe('000042');
    vi.mocked(crypto.randomInt).mockReturnValueOnce(0 as never);
    expect(generateCode()).toBe('000000');
  });

  it('draws from node:crypto over the whole range 000000..999999', () => {
    const calls = vi.mocked(crypto.randomInt).mock.calls.length;
    generateCode();
    expect(vi.mocked(crypto.randomInt).mock.calls.length).toBe(calls + 1);
    expect(vi.mocked(crypto.randomInt).mock.calls.at(-1)).toEqual([0, 1_000_000]);
  });

  it('spreads codes over all first digits and rarely repeats (distribution sanity)', () => {
    const codes = Array.from({ length: 5000 }, generateCode);
    const firstDigits = new Map<string, number>();
    for (const code of codes) firstDigits.set(code[0]!, (firstDigits.get(code[0]!) ?? 0) + 1);
    // Each digit is expected 500 times; 300..700 is more than 9 standard deviations either side.
    expect([...firstDigits.keys()].sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    for (const count of firstDigits.values()) {
      expect(count).toBeGreaterThan(300);
      expect(count).toBeLessThan(700);
    }
    // 5000 draws from a million: about 12.5 collisions expected; a broken generator gives thousands.
    expect(new Set(codes).size).toBeGreaterThan(4950);
  });
});

describe('hashCode', () => {
  it('is deterministic and never contains the code', () => {
    const hash = hashCode(key, 'a@example.com', '123456');
    expect(hashCode(key, 'a@example.com', '123456')).toBe(hash);
    expect(hash).not.toContain('123456');
    expect(hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('differs per code, per target and per key', () => {
    const hash = hashCode(key, 'a@example.com', '123456');
    expect(hashCode(key, 'a@example.com', '123457')).not.toBe(hash);
    expect(hashCode(key, 'b@example.com', '123456')).not.toBe(hash);
    expect(hashCode(otherKey, 'a@example.com', '123456')).not.toBe(hash);
  });

  it('binds target and code unambiguously (no shifting of characters between them)', () => {
    expect(hashCode(key, '+861380013800', '0123456')).not.toBe(hashCode(key, '+8613800138000', '123456'));
  });
});

describe('codeMatches', () => {
  const stored = hashCode(key, '+8613800138000', '012345');

  it('accepts the right code for the right target', () => {
    expect(codeMatches(key, '+8613800138000', '012345', stored)).toBe(true);
  });

  it('refuses a wrong code, another target, another key', () => {
    expect(codeMatches(key, '+8613800138000', '012346', stored)).toBe(false);
    expect(codeMatches(key, '+8613800138000', '12345', stored)).toBe(false);
    expect(codeMatches(key, '+8613800138001', '012345', stored)).toBe(false);
    expect(codeMatches(otherKey, '+8613800138000', '012345', stored)).toBe(false);
  });

  it('refuses (without throwing) a stored hash of another length or garbage', () => {
    expect(codeMatches(key, '+8613800138000', '012345', stored.slice(0, 20))).toBe(false);
    expect(codeMatches(key, '+8613800138000', '012345', '')).toBe(false);
    expect(codeMatches(key, '+8613800138000', '012345', '%%%not base64%%%')).toBe(false);
  });

  it('compares in constant time (timingSafeEqual), not with ===', () => {
    vi.mocked(crypto.timingSafeEqual).mockClear();
    expect(codeMatches(key, '+8613800138000', '999999', stored)).toBe(false);
    expect(crypto.timingSafeEqual).toHaveBeenCalledOnce();
  });
});
