// libphonenumber-js/min: the package's smallest metadata, enough to tell valid numbers and write
// them in E.164, carried as the package ships it (docs/performance.md, "Library data and stand-ins").
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import * as z from 'zod/mini';
import { MAX_EMAIL_LENGTH, emailSchema } from './targets';
import type { Target } from './targets';

/** Phone numbers as targets, and targets that may be either (see targets.ts). */
export function parsePhone(raw: string): Extract<Target, { kind: 'phone' }> | undefined {
  const phone = raw.length <= 32 ? parsePhoneNumberFromString(raw.trim()) : undefined;
  if (!phone?.isValid()) return undefined;
  return { kind: 'phone', value: phone.number, countryCallingCode: phone.countryCallingCode };
}

/** A string of at most `maxLength` characters that `parse` turns into a target, or `message`. */
const parsedTarget = (maxLength: number, parse: (raw: string) => Target | undefined, message: string) =>
  z.pipe(
    z.string().check(z.maxLength(maxLength)),
    z.transform((raw: string, context): Target => {
      const target = parse(raw);
      if (!target) {
        context.issues.push({ code: 'custom', input: raw, message });
        return z.NEVER;
      }
      return target;
    }),
  );

export const phoneTargetSchema = parsedTarget(32, parsePhone, 'must be a phone number in international form, such as +8613800138000').check(
  z.meta({ description: 'International form; stored as E.164', examples: ['+8613800138000'] }),
);

/** An e-mail address or a phone number, told apart by the `@`. */
export function parseTarget(raw: string): Target | undefined {
  if (raw.includes('@')) {
    const email = emailSchema.safeParse(raw);
    return email.success ? { kind: 'email', value: email.data } : undefined;
  }
  return parsePhone(raw);
}

export const targetSchema = parsedTarget(MAX_EMAIL_LENGTH + 10, parseTarget, 'must be an e-mail address or a phone number in international form').check(
  z.meta({ description: 'The e-mail address or phone number (international form) the code was sent to', examples: ['alice@example.com'] }),
);
