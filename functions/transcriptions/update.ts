import { endpoint } from '../../shared/http/endpoint';
import { ifMatchRevision } from '../../shared/http/if-match';
import { transcriptionPathParams } from '../../shared/transcriptions/parameters';
import { transcriptionPatchBody } from '../../shared/transcriptions/schemas';
import { edit } from '../../shared/transcriptions/transcription-service';

/** Edits one of the caller's records; answers the record with `updatedAt` set and its next revision. */
export const handler = endpoint('PATCH /api/transcriptions/{id}', {
  params: transcriptionPathParams,
  body: transcriptionPatchBody,
  response: 'transcriptionRecordSchema',
  etag: true,
  docs: {
    summary: 'Edit a transcription record',
    description:
      'Any of the five fields, at least one; sets `updatedAt` and raises `revision` by one. Usage follows a changed duration. With `If-Match: "<revision>"` the edit is made only on that revision: 412 `RECORD_CHANGED` (with `current`) when the record changed since, 410 `RECORD_DELETED` when it was deleted; without it the last writer wins.',
    errors: ['NOT_FOUND', 'RECORD_CHANGED', 'RECORD_DELETED'],
    headers: ['If-Match'],
  },
  run: ({ params, body, caller, headers }, ctx) => edit(ctx, caller, params.id, body, ifMatchRevision(headers)),
});
