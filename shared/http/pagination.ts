import * as z from 'zod/mini';
import type { Page } from '../db/pagination';
import { boundedIntegerParameter } from '../api/integer-parameter';
import { Reply } from './response';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/** `?limit=` (1..100, default 50) and `?cursor=` of every list (contract section 2). */
export const pageQuerySchema = z.object({
  limit: boundedIntegerParameter('limit', 1, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE),
  cursor: z.optional(
    z.string().check(
      z.maxLength(2048, 'cursor is too long'),
      z.meta({
        description: 'The `X-Next-Cursor` of the previous page; only valid for the list and account it came from',
        beyondSchema: '`cursor` must be an `X-Next-Cursor` this list gave this account',
      }),
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
export function pageReply<T>(page: Page<T>, query: PageQuery, carried: Record<string, string | undefined> = {}): Reply<T[]> {
  if (!page.nextCursor) return new Reply(page.items);
  // `carried`: the parameters the cursor is bound to (a search's `q` and filters), sent again with it.
  const next = new URLSearchParams({ limit: String(query.limit) });
  for (const [name, value] of Object.entries(carried)) if (value !== undefined) next.set(name, value);
  next.set('cursor', page.nextCursor);
  return new Reply(page.items, { 'X-Next-Cursor': page.nextCursor, Link: `<?${next.toString()}>; rel="next"` });
}
