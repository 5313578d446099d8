import { endpoint } from '../../shared/http/endpoint';
import { ifMatchRevision } from '../../shared/http/if-match';
import { succeeded } from '../../shared/http/response';
import { transcriptionPathParams } from '../../shared/transcriptions/parameters';
import { remove } from '../../shared/transcriptions/transcription-service';

export const handler = endpoint('DELETE /api/transcriptions/{id}', {
  params: transcriptionPathParams,
  response: 'successSchema',
  docs: {
    summary: 'Delete a transcription record',
    description:
      'Its duration leaves the usage of the day it was counted on; its tombstone stays in the change feed (docs/sync.md). With `If-Match: "<revision>"` only that revision is deleted: 412 `RECORD_CHANGED` (with `current`) when the record changed since, 410 `RECORD_DELETED` when it is already deleted; without it the last writer wins and a deleted record is 404.',
    errors: ['NOT_FOUND', 'RECORD_CHANGED', 'RECORD_DELETED'],
    headers: ['If-Match'],
  },
  run: async ({ params, caller, headers }, ctx) => {
    await remove(ctx, caller, params.id, ifMatchRevision(headers));
    return succeeded('Transcription record deleted.');
  },
});
