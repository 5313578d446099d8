import * as z from 'zod/mini';
import { endpoint } from '../../shared/http/endpoint';
import { pageQuerySchema, pageReply } from '../../shared/http/pagination';
import { datesInOrder, recordFilterFields } from '../../shared/transcriptions/parameters';
import { find } from '../../shared/transcriptions/transcription-service';

/** The caller's records, newest first, paginated; narrowed by a search and filters when asked. */
export const handler = endpoint('GET /api/transcriptions', {
  query: z.extend(pageQuerySchema, recordFilterFields).check(datesInOrder),
  response: 'foundTranscriptionListSchema',
  docs: {
    summary: 'List or search your transcription records',
    description:
      'Newest first, full records. With `q`, `language`, `from` or `to`, each request reads a bounded batch of older records (at most 200, at most 1 MB) and answers those that match: a page may hold fewer than `limit` records, even none, while more exist further back; follow `X-Next-Cursor` (or the `Link`) until there is none. A cursor only continues the search (or filters) that gave it.',
  },
  run: async ({ query, caller }, ctx) => {
    const { q, language, from, to } = query;
    return pageReply(await find(ctx, caller, query), query, { q, language, from, to });
  },
});
