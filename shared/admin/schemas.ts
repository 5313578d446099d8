import * as z from 'zod/mini';
import { devicePathParams, snSchema } from '../devices/parameters';
import { atLeastOneOf, notBlank, textField } from '../fields';

// The admin API's requests (issue 37); the lookup's query is in ./lookup.ts.

/** A user id in a path or query: digits only. */
export const userIdParameter = z
  .pipe(z.string().check(z.regex(/^[1-9]\d{0,15}$/, 'must be a user id (a positive whole number)')), z.transform(Number))
  .check(z.meta({ description: 'The user id', integer: { minimum: 1 } }));

export const adminUserPath = z.object({ userId: userIdParameter });
export const adminDevicePath = devicePathParams;

/** Every change says why: 1 to 500 characters, not blank. It goes into the audit trail. */
export const adminReasonBody = z.object({
  reason: textField(1, 500).check(notBlank(), z.meta({ description: 'Why (the ticket): kept in the audit trail', examples: ['Ticket 4711: lost phone'] })),
});

/** `?userId=` or `?sn=` (one): whose audit trail; the page (`?limit=`, `?cursor=`) is the list's own (functions/admin/audit.ts). */
export const adminAuditTargetFields = {
  userId: z.optional(userIdParameter),
  sn: z.optional(snSchema),
};
export const adminAuditTargetChecks = [
  ...atLeastOneOf(['userId', 'sn']),
  z.refine<Record<string, unknown>>((value) => value.userId === undefined || value.sn === undefined, 'give only one of userId, sn'),
] as const;
