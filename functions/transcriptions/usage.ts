import { endpoint } from '../../shared/http/endpoint';
import { usageQuery } from '../../shared/transcriptions/parameters';
import { usage } from '../../shared/transcriptions/transcription-service';

/** Lifetime and daily usage in seconds, from aggregates: constant cost whatever the record count. */
export const handler = endpoint('GET /api/transcriptions/usage', {
  query: usageQuery,
  response: 'usageSchema',
  docs: { summary: 'Usage in seconds', description: 'Lifetime total and one entry per UTC day with usage in the last `days` days, newest first.' },
  run: ({ query, caller }, ctx) => usage(ctx, caller, query.days),
});
