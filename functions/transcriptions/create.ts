import { endpoint } from '../../shared/http/endpoint';
import { idempotencyKey, idempotently } from '../../shared/http/idempotency';
import { transcriptionRecordResponse } from '../../shared/http/response-shapes.generated';
import { newTranscriptionBody } from '../../shared/transcriptions/schemas';
import { save } from '../../shared/transcriptions/transcription-service';

/** Saves a transcription record; honours Idempotency-Key. */
export const handler = endpoint('POST /api/transcriptions', {
  body: newTranscriptionBody,
  response: transcriptionRecordResponse,
  docs: { summary: 'Save a transcription record', headers: ['Idempotency-Key'] },
  run: ({ body, caller, headers }, ctx) =>
    idempotently(ctx, { account: caller, scope: 'transcriptions', key: idempotencyKey(headers), request: body }, (remember) =>
      save(ctx, caller, body, remember),
    ),
});
