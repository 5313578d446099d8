import { endpoint } from '../../shared/http/endpoint';
import { pageQuerySchema, pageReply } from '../../shared/http/pagination';
import { list } from '../../shared/transcriptions/transcription-service';

/** The caller's records, newest first, paginated. */
export const handler = endpoint('GET /api/transcriptions', {
  query: pageQuerySchema,
  run: async ({ query, caller }, ctx) => pageReply(await list(ctx, caller, query), query),
});
