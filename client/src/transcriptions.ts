import type { ClientContext } from './context';
import type { paths } from './generated/api';
import { dataOf } from './transport';

export type NewTranscription = paths['/transcriptions']['post']['requestBody']['content']['application/json'];

/** Transcription records. */
export function transcriptionsArea({ api }: ClientContext) {
  return {
    /**
     * Saves a record. Sent with an Idempotency-Key (yours if you pass one), the same for every
     * retry and for the same record sent again before the service confirmed it (after a restart
     * too): a record is stored, and its usage counted, once.
     */
    create: (body: NewTranscription, options: { idempotencyKey?: string } = {}) =>
      dataOf(api.POST('/transcriptions', { body, ...(options.idempotencyKey ? { params: { header: { 'Idempotency-Key': options.idempotencyKey } } } : {}) })),
  };
}

export type Transcriptions = ReturnType<typeof transcriptionsArea>;
