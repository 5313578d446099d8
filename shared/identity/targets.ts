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

/**
 * An e-mail address as zod checks one (`z.regexes.email`), with the white space the server trims
 * allowed around it: the pattern the API reference states is the one checked here, so a request
 * the reference allows is one the server takes. (JSON Schema's `format: email` is not stated: its
 * validators disagree, and some take `0@com`, which this refuses.)
 */
export const EMAIL_PATTERN = new RegExp(`^\\s*(?:${z.regexes.email.source.slice(1, -1)})\\s*$`);

/** Length counted as sent, white space included, as the reference's `maxLength` counts it. */
export const emailSchema = z
  .string()
  .check(
    z.maxLength(MAX_EMAIL_LENGTH, `must be at most ${MAX_EMAIL_LENGTH} characters`),
    z.regex(EMAIL_PATTERN, 'must be an e-mail address'),
    z.trim(),
    z.toLowerCase(),
  );

export const emailTargetSchema = z
  .pipe(emailSchema, z.transform((value: string): Target => ({ kind: 'email', value })))
  .check(z.meta({ description: 'White space around it is trimmed; stored lower-cased', examples: ['alice@example.com'] }));
