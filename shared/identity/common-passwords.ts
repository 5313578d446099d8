import { COMMON_PASSWORDS } from './common-passwords-data';

/**
 * Passwords too common to allow (NIST SP 800-63B 5.1.1.2: refuse values from breach corpora).
 * Compared case-insensitively, so `Password1` is refused like `password1`. The set is built on
 * first use, so functions that never check a new password never pay for it; the list itself is
 * one string, which costs far less to import than an array literal of 10 000 elements.
 */
let common: Set<string> | undefined;

export function commonPasswords(): ReadonlySet<string> {
  common ??= new Set(COMMON_PASSWORDS.toLowerCase().split('\n'));
  return common;
}

export const isCommonPassword = (password: string): boolean => commonPasswords().has(password.toLowerCase());
