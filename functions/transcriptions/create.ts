import { endpoint } from '../../shared/http/endpoint';
import { idempotentIn } from '../../shared/http/middlewares/idempotency';
import { newTranscriptionBody } from '../../shared/transcriptions/schemas';
import { save } from '../../shared/transcriptions/transcription-service';

/** Saves a transcription record; honours Idempotency-Key. */
export const handler = endpoint('POST /api/transcriptions', {
  body: newTranscriptionBody,
  response: 'transcriptionRecordSchema',
  idempotency: idempotentIn('transcriptions'),
  docs: { summary: 'Save a transcription record' },
  run: ({ body, caller, remember }, ctx) => save(ctx, caller, body, remember),
});
