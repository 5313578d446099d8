import { endpoint } from '../../shared/http/endpoint';
import { transcriptionPatchBody, transcriptionPathParams } from '../../shared/transcriptions/schemas';
import { edit } from '../../shared/transcriptions/transcription-service';

/** Edits one of the caller's records; answers the record with `updatedAt` set. */
export const handler = endpoint('PATCH /api/transcriptions/{id}', {
  params: transcriptionPathParams,
  body: transcriptionPatchBody,
  run: ({ params, body, caller }, ctx) => edit(ctx, caller, params.id, body),
});
