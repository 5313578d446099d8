// libphonenumber-js/min: the package's smallest metadata, enough to tell valid numbers and write
// them in E.164, carried as the package ships it (docs/performance.md, "Library data and stand-ins").
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import * as z from 'zod/mini';
import { emailTargetSchema } from './targets';
import type { Target } from './targets';

/** Phone numbers as targets, and targets that may be either (see targets.ts). */
export function parsePhone(raw: string): Extract<Target, { kind: 'phone' }> | undefined {
  const phone = raw.length <= 32 ? parsePhoneNumberFromString(raw.trim()) : undefined;
  if (!phone?.isValid()) return undefined;
  return { kind: 'phone', value: phone.number, countryCallingCode: phone.countryCallingCode };
}

/**
 * The form of a phone number in a request: `+`, then digits, optionally grouped by spaces, dots,
 * dashes or parentheses (`+86 138 0013 8000`, `+1 (650) 253-0000`), white space around it trimmed.
 * Checked here and stated as the pattern of the API reference; whether the number exists in its
 * country (libphonenumber-js metadata) is a rule JSON Schema cannot state (`beyondSchema`).
 */
export const PHONE_PATTERN = /^\s*\+\d[\d ().-]*\s*$/;
export const MAX_PHONE_LENGTH = 32;
const PHONE_MESSAGE = 'must be a phone number in international form, such as +8613800138000';

export const phoneTargetSchema = z
  .pipe(
    z.string().check(z.maxLength(MAX_PHONE_LENGTH, PHONE_MESSAGE), z.regex(PHONE_PATTERN, PHONE_MESSAGE)),
    z.transform((raw: string, context): Target => {
      const target = parsePhone(raw);
      if (!target) {
        context.issues.push({ code: 'custom', input: raw, message: PHONE_MESSAGE });
        return z.NEVER;
      }
      return target;
    }),
  )
  .check(
    z.meta({
      description: 'International form; stored as E.164',
      examples: ['+8613800138000'],
      beyondSchema: 'a phone number must be a valid number of its country',
    }),
  );

/** An e-mail address or a phone number: whichever the string is (a phone number has no `@`). */
export const targetSchema = z
  .union([emailTargetSchema, phoneTargetSchema], { error: 'must be an e-mail address or a phone number in international form' })
  .check(z.meta({ description: 'The e-mail address or phone number (international form) the code was sent to', examples: ['alice@example.com'] }));

/** An e-mail address or a phone number as a target, or undefined (the dev outbox's lookup). */
export function parseTarget(raw: string): Target | undefined {
  const target = z.safeParse(targetSchema, raw);
  return target.success ? target.data : undefined;
}
