import { unpackText } from '../packed-text';
import { COMMON_PASSWORDS_BROTLI_BASE64 } from './common-passwords-data';

/**
 * Passwords too common to allow (NIST SP 800-63B 5.1.1.2: refuse values from breach corpora).
 * Compared case-insensitively, so `Password1` is refused like `password1`. The set is built on
 * first use, so functions that never check a new password never pay for it. Packed for bytes
 * only (35 KB instead of 91 KB; unpacking costs ~1.8 ms at the first check): unpacked, register
 * and reset exceed the 420 KB identity goal (README "Benchmarks", "Packed data").
 */
let common: Set<string> | undefined;

export function commonPasswords(): ReadonlySet<string> {
  common ??= new Set(unpackText(COMMON_PASSWORDS_BROTLI_BASE64).toLowerCase().split('\n'));
  return common;
}

export const isCommonPassword = (password: string): boolean => commonPasswords().has(password.toLowerCase());
