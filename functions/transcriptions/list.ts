import { database } from '../../shared/db/client';
import { endpoint } from '../../shared/http/endpoint';
import { pageQuerySchema, pageReply } from '../../shared/http/pagination';
import { list } from '../../shared/transcriptions/transcription-service';

/** The caller's records, newest first, paginated. */
export const handler = endpoint('GET /api/transcriptions', {
  adapters: { database },
  query: pageQuerySchema,
  response: 'transcriptionListSchema',
  docs: { summary: 'List your transcription records', description: 'Newest first, full records.' },
  run: async ({ query, caller }, ctx) => pageReply(await list(ctx, caller, query), query),
});
