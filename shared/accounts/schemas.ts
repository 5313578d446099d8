import * as z from 'zod/mini';
import { atLeastOneOf } from '../fields';
import { TIME_ZONE_NAME } from '../time-zones';

/** `en`, `zh-CN`, `zh-Hans-CN`, `es-419`: a language, an optional script, an optional region. */
const LOCALE_TAG = /^[a-z]{2,3}(?:-[A-Z][a-z]{3})?(?:-(?:[A-Z]{2}|\d{3}))?$/;

const profileFields = {
  // Whether ICU knows the zone is checked by the service (shared/accounts/profile-service.ts).
  timeZone: z.optional(
    z.nullable(
      z.string().check(
        z.maxLength(64),
        z.regex(TIME_ZONE_NAME, 'must be an IANA time zone name such as Asia/Shanghai or America/New_York'),
        z.meta({
          description: 'IANA time zone name, any letter case; null: UTC',
          examples: ['Asia/Shanghai'],
          beyondSchema: '`timeZone` must be a zone of the IANA time zone database the service knows (`Mars/Olympus` is refused)',
        }),
      ),
    ),
  ),
  locale: z.optional(
    z.nullable(
      z.string().check(
        z.regex(LOCALE_TAG, 'must be a language tag like en or zh-CN'),
        z.meta({ description: 'Default language of the codes sent to this account; null: the request’s', examples: ['zh-CN'] }),
      ),
    ),
  ),
};

/** PATCH /api/users/me: any of the person's settings, at least one; null clears one. */
export const profilePatchBody = z.object(profileFields).check(...atLeastOneOf(Object.keys(profileFields)));
