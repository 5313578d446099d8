import { endpoint } from '../../shared/http/endpoint';
import { transcriptionPathParams } from '../../shared/transcriptions/parameters';
import { transcriptionPatchBody } from '../../shared/transcriptions/schemas';
import { edit } from '../../shared/transcriptions/transcription-service';

/** Edits one of the caller's records; answers the record with `updatedAt` set. */
export const handler = endpoint('PATCH /api/transcriptions/{id}', {
  params: transcriptionPathParams,
  body: transcriptionPatchBody,
  response: 'transcriptionRecordSchema',
  docs: {
    summary: 'Edit a transcription record',
    description: 'Any of the five fields, at least one; sets `updatedAt`. Usage follows a changed duration.',
    errors: ['NOT_FOUND'],
  },
  run: ({ params, body, caller }, ctx) => edit(ctx, caller, params.id, body),
});
