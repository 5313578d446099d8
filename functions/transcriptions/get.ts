import { endpoint } from '../../shared/http/endpoint';
import { transcriptionPathParams } from '../../shared/transcriptions/parameters';
import { get } from '../../shared/transcriptions/transcription-service';

/** One of the caller's records, with its ETag; another user's record is 404, a deleted one 410 with its tombstone. */
export const handler = endpoint('GET /api/transcriptions/{id}', {
  params: transcriptionPathParams,
  response: 'transcriptionRecordSchema',
  etag: true,
  docs: { summary: 'Read a transcription record', errors: ['NOT_FOUND', 'RECORD_DELETED'] },
  run: ({ params, caller }, ctx) => get(ctx, caller, params.id),
});
