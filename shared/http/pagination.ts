import * as z from 'zod';
import type { Page } from '../db/pagination';
import { Reply } from './response';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

const digits = (field: string, min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d{1,6}$/, `${field} must be a whole number`)
    .transform(Number)
    .pipe(z.number().int().min(min, `${field} must be at least ${min}`).max(max, `${field} must be at most ${max}`))
    .optional()
    .transform((value) => value ?? fallback)
    .meta({ description: `A whole number from ${min} to ${max}; ${fallback} when absent`, examples: [String(fallback)] });

/** A query parameter that is a whole number in a range, with a default (`?days=`, `?limit=`). */
export const boundedIntegerParameter = digits;

/** `?limit=` (1..100, default 50) and `?cursor=` of every list (contract section 2). */
export const pageQuerySchema = z.object({
  limit: digits('limit', 1, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE),
  cursor: z
    .string()
    .max(2048, 'cursor is too long')
    .meta({ description: 'The `X-Next-Cursor` of the previous page; only valid for the list and account it came from' })
    .optional(),
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
