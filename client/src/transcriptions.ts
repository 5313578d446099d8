import type { ClientContext } from './context';
import { apiErrorOf } from './errors';
import type { components, paths } from './generated/api';
import { outboxArea } from './outbox';
import type { Conflict, OutboxOptions } from './outbox';
import { dataOf } from './transport';

export type NewTranscription = paths['/transcriptions']['post']['requestBody']['content']['application/json'];
export type FoundTranscription = components['schemas']['FoundTranscriptionRecord'];
/** What `search()` takes: the search and its filters, `limit` (default 50), and `cursor` to go on. */
export interface TranscriptionSearch {
  q: string;
  limit?: number;
  language?: string;
  from?: string;
  to?: string;
  cursor?: string;
}

/**
 * Transcription records: `save`, `update`, `remove` through the offline outbox, `pull` and `sync`
 * over the change feed (outbox.ts); `create` and `search` straight to the service.
 */
export function transcriptionsArea(context: ClientContext, options: OutboxOptions & { onConflict?: (conflict: Conflict) => void } = {}) {
  const { api } = context;
  return {
    ...outboxArea(context, options),
    /**
     * Saves a record. Sent with an Idempotency-Key (yours if you pass one), the same for every
     * retry and for the same record sent again before the service confirmed it (after a restart
     * too): a record is stored, and its usage counted, once.
     */
    create: (body: NewTranscription, options: { idempotencyKey?: string } = {}) =>
      dataOf(api.POST('/transcriptions', { body, ...(options.idempotencyKey ? { params: { header: { 'Idempotency-Key': options.idempotencyKey } } } : {}) })),
    /**
     * Searches the person's records, newest first, each with its `match`. One page of the service
     * reads a bounded batch of the history and may hold fewer than `limit` records, even none,
     * while more exist further back: this asks page after page, with the cursor, until it has
     * `limit` records or the history ends. `cursor` is where a later call goes on (absent once
     * the oldest record was read).
     */
    async search({ limit = 50, cursor, ...filters }: TranscriptionSearch): Promise<{ records: FoundTranscription[]; cursor?: string }> {
      const records: FoundTranscription[] = [];
      do {
        const { data, error, response } = await api.GET('/transcriptions', {
          params: { query: { ...filters, limit: limit - records.length, ...(cursor ? { cursor } : {}) } },
        });
        if (!response.ok) throw await apiErrorOf(response, error ?? null);
        records.push(...(data ?? []));
        cursor = response.headers.get('X-Next-Cursor') ?? undefined;
      } while (cursor && records.length < limit);
      return cursor ? { records, cursor } : { records };
    },
  };
}

export type Transcriptions = ReturnType<typeof transcriptionsArea>;
