import * as z from 'zod/mini';

/**
 * Where a verification code goes, normalised so that one person is one target: e-mail trimmed and
 * lower-cased, phone numbers in E.164. Phones must be given in international form (+86..., +1...).
 *
 * Phone numbers are parsed in phone-targets.ts, a module of its own: a function that only takes an
 * e-mail address (changing it) then bundles no libphonenumber-js (80 KB of metadata, ~3 ms of cold
 * import).
 */
export type Target =
  | { kind: 'email'; value: string }
  | { kind: 'phone'; value: string; countryCallingCode: string };

export const MAX_EMAIL_LENGTH = 254;

export const emailSchema = z.pipe(
  z.string().check(z.trim(), z.toLowerCase()),
  z.email({ message: 'must be an e-mail address' }).check(z.maxLength(MAX_EMAIL_LENGTH)),
);

export const emailTargetSchema = z
  .pipe(emailSchema, z.transform((value: string): Target => ({ kind: 'email', value })))
  .check(z.meta({ format: 'email', description: 'Trimmed and lower-cased', examples: ['alice@example.com'] }));
