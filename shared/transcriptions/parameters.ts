import * as z from 'zod/mini';
import { boundedIntegerParameter } from '../api/integer-parameter';
import { languageTagSchema } from '../fields';
import { SEARCH_QUERY_MAX_LENGTH, searchQueryProblem } from './search';

/** Ids are positive integers below 2^53; anything else names no record. */
export const transcriptionPathParams = z.object({
  id: z
    .pipe(
      z.string().check(
        z.regex(/^[1-9]\d{0,15}$/, 'must be a positive integer'),
        z.meta({ description: 'The `transcriptionRecordId`', integer: { minimum: 1, maximum: Number.MAX_SAFE_INTEGER }, examples: [1] }),
      ),
      z.transform(Number),
    )
    .check(z.refine(Number.isSafeInteger, 'must be a positive integer')),
});

/** `?days=` 1..366 (a leap year), default 30 (contract section 4). */
export const usageQuery = z.object({ days: boundedIntegerParameter('days', 1, 366, 30) });

const CALENDAR_DATE = /^\d{4}-\d{2}-\d{2}$/;
/** A date of the calendar (not 2026-02-30): it reads back as itself. */
const isRealDate = (value: string) => {
  const at = new Date(`${value}T00:00:00Z`);
  return Number.isFinite(at.getTime()) && at.toISOString().slice(0, 10) === value;
};
const calendarDate = (description: string) =>
  z.optional(
    z.string().check(
      z.regex(CALENDAR_DATE, { message: 'must be a calendar date like 2026-01-29', abort: true }),
      z.refine(isRealDate, 'is not a date of the calendar'),
      z.meta({ format: 'date', description, examples: ['2026-01-29'], beyondSchema: '`from` and `to` must be days of the calendar (not 2026-02-30), and `from` not after `to`' }),
    ),
  );

/**
 * `?q=`, `?language=`, `?from=`, `?to=` of GET /api/transcriptions (search and filters; the
 * matching rules are in ./search.ts). Each problem is a `details` entry of the 400.
 */
export const recordFilterFields = {
  q: z.optional(
    z.string().check(
      // Stated in the parameter's schema (`pattern`, and the lengths below), so a client built from the document refuses a blank search first.
      z.regex(/\S/, { message: 'must not be blank', abort: true }),
      z.refine((q) => searchQueryProblem(q) === undefined, { abort: true, error: (issue) => searchQueryProblem(String(issue.input)) ?? 'is not a search' }),
      z.meta({
        minLength: 1,
        maxLength: SEARCH_QUERY_MAX_LENGTH,
        description:
          `Search: 1 to ${SEARCH_QUERY_MAX_LENGTH} characters, not only white space. Every word (separated by spaces) must occur in the title or the text, as a substring; a part in double quotes must occur as written. Ignores case, full-width and half-width forms (NFKC) and accents; Chinese and Japanese match as substrings. Adds \`match\` to each record`,
        examples: ['dose', '会议', '"three pm" meeting'],
        beyondSchema: '`q` must have its double quotes balanced and hold a word, not only quotes',
      }),
    ),
  ),
  language: z.optional(languageTagSchema.check(z.meta({ description: 'Only records in this language', examples: ['zh-CN'] }))),
  from: calendarDate('Only records that started on this calendar day or later, in the account’s time zone (UTC while none is set)'),
  to: calendarDate('Only records that started on this calendar day or earlier, in the account’s time zone (UTC while none is set)'),
};

/** `from` after `to` selects nothing: refused as a mistake rather than answered empty. */
export const datesInOrder = z.refine<{ from?: string | undefined; to?: string | undefined }>((filters) => !(filters.from && filters.to && filters.from > filters.to), {
  message: 'must not be before from',
  path: ['to'],
});

/** `?cursor=` and `?limit=` (1..100, default 50) of the change feed (GET /api/transcriptions/changes). */
export const changeFeedQuery = z.object({
  limit: boundedIntegerParameter('limit', 1, 100, 50),
  cursor: z.optional(
    z.string().check(
      z.maxLength(512, 'cursor is too long'),
      z.meta({
        description: 'The `cursor` of the previous answer; absent: from the beginning (every live record and the tombstones kept)',
        beyondSchema: '`cursor` must be a cursor the change feed gave this account',
      }),
    ),
  ),
});
