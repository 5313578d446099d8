import * as z from 'zod/mini';
import { snSchema } from '../devices/parameters';
import { atLeastOneOf } from '../fields';
import { phoneTargetSchema } from '../identity/phone-targets';
import { emailTargetSchema } from '../identity/targets';
import { userIdParameter } from './schemas';

// GET /admin/users's query (issue 37), apart from the other admin schemas: only this function
// parses phone numbers (test/unit/bundles.test.ts). Exact and normalised as sign-in normalises:
// e-mail trimmed and lower-cased, phone in E.164, serial as bound, the user id as a number.

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
