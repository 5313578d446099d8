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

/** The most a day has (86 400 s); a month's limit at most 31 of them. Beyond these a limit means nothing. */
export const SPEECH_LIMIT_MAX = { daily: 86_400, monthly: 31 * 86_400 } as const;

const limitSeconds = (max: number, description: string) =>
  z.int().check(z.minimum(0), z.maximum(max), z.describe(description));

/**
 * `PUT /admin/users/{userId}/speech-limits`: the account's own daily and monthly speech limits, in
 * whole seconds (0 stops speech for the account). The month's may not be below the day's: a day
 * could never use what its limit promises (docs/support.md, "Speech limits").
 */
export const adminSpeechLimitsBody = z
  .object({
    dailySeconds: limitSeconds(SPEECH_LIMIT_MAX.daily, 'Seconds a day in the account’s time zone, 0 to 86 400 (a day)'),
    monthlySeconds: limitSeconds(SPEECH_LIMIT_MAX.monthly, 'Seconds a month, 0 to 2 678 400 (31 days), and at least dailySeconds'),
    reason: adminReasonBody.shape.reason,
  })
  .check(
    z.refine((value) => value.monthlySeconds >= value.dailySeconds, { message: 'must be at least dailySeconds', path: ['monthlySeconds'] }),
  );
