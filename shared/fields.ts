import * as z from 'zod/mini';

/** Length as people count characters: Unicode code points, so an emoji or a CJK character is one. */
export const codePointLength = (value: string): number => {
  let length = 0;
  for (const _ of value) length++;
  return length;
};

/** A lone surrogate (from a `\ud800` escape in JSON) cannot be stored as UTF-8; it would come back altered. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Text of `min` to `max` characters (code points), well-formed Unicode. */
export const textField = (min: number, max: number) =>
  z.string().check(
    z.refine((value) => !LONE_SURROGATE.test(value), 'must be well-formed Unicode text (no lone surrogates)'),
    z.refine((value) => {
      const length = codePointLength(value);
      return length >= min && length <= max;
    }, min === 0 ? `must be at most ${max} characters` : `must be ${min} to ${max} characters`),
    // For the API reference: JSON Schema counts string length in code points too.
    z.meta({ minLength: min, maxLength: max }),
  );

/**
 * Not only white space. `\S` is what `trim()` keeps (JavaScript's `\s` is exactly the white space
 * and line terminators it removes), so this is `value.trim() !== ''`, written as the pattern the
 * API reference states.
 */
export const notBlank = () => z.regex(/\S/, 'must not be blank');

/**
 * A PATCH body's rule: at least one of these fields (null counts: it clears one). Stated for the
 * API reference as JSON Schema can: `minProperties`, and one `required` per field, since unknown
 * fields are ignored and `minProperties` alone would let `{"other": 1}` through. The `anyOf` sits
 * in an `allOf`: openapi-typescript reads an `anyOf` beside `properties` as a union with
 * `unknown`, which would type the whole body as `unknown`.
 */
export const atLeastOneOf = (names: readonly string[]) =>
  [
    z.refine<Record<string, unknown>>((value) => names.some((name) => value[name] !== undefined), `give at least one of ${names.join(', ')}`),
    z.meta({ minProperties: 1, allOf: [{ anyOf: names.map((name) => ({ required: [name] })) }] }),
  ] as const;

/**
 * A language code as the seed writes it, `<language>-<REGION>` (`en-US`, `zh-CN`): a 2- or
 * 3-letter lower-case language and a 2-letter upper-case region, or a 3-digit UN M.49 region
 * (`es-419`) as BCP 47 allows.
 */
export const LANGUAGE_TAG = /^[a-z]{2,3}-(?:[A-Z]{2}|\d{3})$/;
export const languageTagSchema = z.string().check(
  z.regex(LANGUAGE_TAG, 'must be a language code like en-US or zh-CN'),
  z.meta({ description: '<language>-<REGION>', examples: ['en-US', 'zh-CN'] }),
);

/** A push token's platform and, for APNs, its environment, as the session item stores them (docs/realtime.md#the-silent-push). */
export type PushPlatform = 'apns' | 'fcm';
export const APNS_ENVIRONMENTS = ['sandbox', 'production'] as const;
export type ApnsEnvironment = (typeof APNS_ENVIRONMENTS)[number];
