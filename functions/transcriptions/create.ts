import { endpoint } from '../../shared/http/endpoint';
import { idempotentIn } from '../../shared/http/middlewares/idempotency';
import { savedReply } from '../../shared/http/saved-record';
import { newTranscriptionBody } from '../../shared/transcriptions/schemas';
import { save } from '../../shared/transcriptions/transcription-service';

/** Saves a transcription record; honours Idempotency-Key, and `clientRecordId` for as long as the record or its tombstone exists. */
export const handler = endpoint('POST /api/transcriptions', {
  body: newTranscriptionBody,
  response: 'transcriptionRecordSchema',
  idempotency: idempotentIn('transcriptions'),
  etag: true,
  docs: {
    summary: 'Save a transcription record',
    description:
      'Answers the record with `revision` 1 and its `ETag`. With a `clientRecordId` the create can be repeated safely for as long as the record or its tombstone exists (docs/sync.md): the same body answers the stored record with `Idempotent-Replayed: true`, writes nothing and counts usage once.',
    errors: ['CLIENT_RECORD_ID_REUSED', 'RECORD_DELETED'],
  },
  run: async ({ body, caller, remember }, ctx) => savedReply(await save(ctx, caller, body, remember)),
});
