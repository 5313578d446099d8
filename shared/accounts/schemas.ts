import * as z from 'zod/mini';

/** `en`, `zh-CN`, `zh-Hans-CN`, `es-419`: a language, an optional script, an optional region. */
const LOCALE_TAG = /^[a-z]{2,3}(?:-[A-Z][a-z]{3})?(?:-(?:[A-Z]{2}|\d{3}))?$/;

/** PATCH /api/users/me: any of the person's settings, at least one; null clears one. */
export const profilePatchBody = z
  .object({
    // Whether ICU knows the zone is checked by the service (shared/accounts/profile-service.ts).
    timeZone: z.optional(
      z.nullable(z.string().check(z.maxLength(64), z.meta({ description: 'IANA time zone name; null: UTC', examples: ['Asia/Shanghai'] }))),
    ),
    locale: z.optional(
      z.nullable(
        z.string().check(
          z.regex(LOCALE_TAG, 'must be a language tag like en or zh-CN'),
          z.meta({ description: 'Default language of the codes sent to this account; null: the request’s', examples: ['zh-CN'] }),
        ),
      ),
    ),
  })
  .check(
    z.refine((patch) => patch.timeZone !== undefined || patch.locale !== undefined, { message: 'give at least one of timeZone, locale' }),
  );
