import { endpoint } from '../../shared/http/endpoint';
import { usageQuery } from '../../shared/transcriptions/schemas';
import { usage } from '../../shared/transcriptions/transcription-service';

/** Lifetime and daily usage in seconds, from aggregates: constant cost whatever the record count. */
export const handler = endpoint('GET /api/transcriptions/usage', {
  query: usageQuery,
  run: ({ query, caller }, ctx) => usage(ctx, caller, query.days),
});
