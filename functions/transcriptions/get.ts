import { endpoint } from '../../shared/http/endpoint';
import { transcriptionPathParams } from '../../shared/transcriptions/schemas';
import { get } from '../../shared/transcriptions/transcription-service';

/** One of the caller's records; another user's record is 404. */
export const handler = endpoint('GET /api/transcriptions/{id}', {
  params: transcriptionPathParams,
  run: ({ params, caller }, ctx) => get(ctx, caller, params.id),
});
