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
 * A language code as the seed writes it, `<language>-<REGION>` (`en-US`, `zh-CN`): a 2- or
 * 3-letter lower-case language and a 2-letter upper-case region, or a 3-digit UN M.49 region
 * (`es-419`) as BCP 47 allows.
 */
export const LANGUAGE_TAG = /^[a-z]{2,3}-(?:[A-Z]{2}|\d{3})$/;
export const languageTagSchema = z.string().check(
  z.regex(LANGUAGE_TAG, 'must be a language code like en-US or zh-CN'),
  z.meta({ description: '<language>-<REGION>', examples: ['en-US', 'zh-CN'] }),
);
