import * as z from 'zod/mini';
import type { Page } from '../db/pagination';
import { Reply } from './response';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

const digits = (field: string, min: number, max: number, fallback: number) =>
  z
    .pipe(
      z.optional(
        z.pipe(
          z.pipe(z.string().check(z.regex(/^\d{1,6}$/, `${field} must be a whole number`)), z.transform(Number)),
          z.number().check(z.int(), z.gte(min, `${field} must be at least ${min}`), z.lte(max, `${field} must be at most ${max}`)),
        ),
      ),
      z.transform((value: number | undefined) => value ?? fallback),
    )
    // `integer`: what the OpenAPI document says of it (infra/tools/openapi.ts): a query string holds
    // digits, but a client generator should type the parameter as the number it means.
    .check(z.meta({ description: `A whole number from ${min} to ${max}; ${fallback} when absent`, integer: { minimum: min, maximum: max, default: fallback } }));

/** A query parameter that is a whole number in a range, with a default (`?days=`, `?limit=`). */
export const boundedIntegerParameter = digits;

/** `?limit=` (1..100, default 50) and `?cursor=` of every list (contract section 2). */
export const pageQuerySchema = z.object({
  limit: digits('limit', 1, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE),
  cursor: z.optional(
    z.string().check(
      z.maxLength(2048, 'cursor is too long'),
      z.meta({ description: 'The `X-Next-Cursor` of the previous page; only valid for the list and account it came from' }),
    ),
  ),
});

export type PageQuery = z.output<typeof pageQuerySchema>;

/**
 * A list response: the plain array, and when more items exist the cursor twice, as
 * `X-Next-Cursor` and as an RFC 8288 `Link` with rel="next". The link is a relative reference
 * that only replaces the query (RFC 3986 section 5.2), so it resolves against whatever URL the
 * client called (with or without /v1, a stage or a custom-domain base path) without the handler
 * having to know it.
 */
export function pageReply<T>(page: Page<T>, query: PageQuery): Reply<T[]> {
  if (!page.nextCursor) return new Reply(page.items);
  const next = new URLSearchParams({ limit: String(query.limit), cursor: page.nextCursor });
  return new Reply(page.items, { 'X-Next-Cursor': page.nextCursor, Link: `<?${next.toString()}>; rel="next"` });
}
