import * as z from 'zod/mini';
import { boundedIntegerParameter } from '../api/integer-parameter';
import { devicePathParams, snSchema } from '../devices/parameters';
import { atLeastOneOf, notBlank, textField } from '../fields';
import { phoneTargetSchema } from '../identity/phone-targets';
import { emailTargetSchema } from '../identity/targets';

// The admin API's requests (issue 37). Lookups are exact and normalised as sign-in normalises:
// e-mail trimmed and lower-cased, phone in E.164, serial as bound, the user id as a number.

/** A user id in a path or query: digits only. */
const userIdParameter = z
  .pipe(z.string().check(z.regex(/^[1-9]\d{0,15}$/, 'must be a user id (a positive whole number)')), z.transform(Number))
  .check(z.meta({ description: 'The user id', integer: { minimum: 1 } }));

const LOOKUP_KEYS = ['email', 'phone', 'userId', 'sn'] as const;

/** `?email=` | `?phone=` | `?userId=` | `?sn=`: exactly one. */
export const adminLookupQuery = z.object({
  email: z.optional(emailTargetSchema),
  phone: z.optional(phoneTargetSchema),
  userId: z.optional(userIdParameter),
  sn: z.optional(snSchema),
}).check(
  ...atLeastOneOf(LOOKUP_KEYS),
  z.refine((value: Record<string, unknown>) => LOOKUP_KEYS.filter((name) => value[name] !== undefined).length <= 1, 'give only one of email, phone, userId, sn'),
);
export type AdminLookup = z.output<typeof adminLookupQuery>;

export const adminUserPath = z.object({ userId: userIdParameter });
export const adminDevicePath = devicePathParams;

/** Every change says why: 1 to 500 characters, not blank. It goes into the audit trail. */
export const adminReasonBody = z.object({
  reason: textField(1, 500).check(notBlank(), z.meta({ description: 'Why (the ticket): kept in the audit trail', examples: ['Ticket 4711: lost phone'] })),
});

/** `?userId=` or `?sn=` (one), `?limit=`, `?cursor=`. */
export const adminAuditQuery = z.object({
  userId: z.optional(userIdParameter),
  sn: z.optional(snSchema),
  limit: boundedIntegerParameter('limit', 1, 100, 50),
  cursor: z.optional(z.string().check(z.maxLength(2048, 'cursor is too long'))),
}).check(
  ...atLeastOneOf(['userId', 'sn']),
  z.refine((value: Record<string, unknown>) => value.userId === undefined || value.sn === undefined, 'give only one of userId, sn'),
);
