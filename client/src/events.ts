import type { ClientContext } from './context';
import { apiErrorOf } from './errors';
import type { paths } from './generated/api';
import { newKey } from './idempotency';
import { STORAGE_KEYS, readJson, serialized, writeJson } from './storage';

type BatchBody = paths['/behavior/events/batch']['post']['requestBody']['content']['application/json'];
export type EventType = BatchBody['events'][number]['eventType'];

export interface QueuedEvent {
  eventType: EventType;
  eventValue: string;
  /** When it happened (ISO 8601 UTC, seconds): an event sent hours later keeps its time. */
  occurredAt: string;
}

/** Events the queue let go of, by why. */
export interface DroppedEvents {
  /** The queue was full: the oldest went. */
  full: number;
  /** Older than the service accepts. */
  tooOld: number;
  /** In a batch the service refused as invalid (see `lastRefusal`). */
  invalid: number;
}

interface QueueState {
  /** Waiting, oldest first. */
  events: QueuedEvent[];
  /** The batch being sent, with its Idempotency-Key: stored before it is sent, removed once confirmed. */
  batch?: { key: string; events: QueuedEvent[] };
  dropped: DroppedEvents;
  lastRefusal?: { status: number; error: string; message: string; events: number };
}

export interface EventOptions {
  /** The most events kept (default 1 000); when full the oldest are dropped and counted. */
  maxQueued?: number;
}

/** What the batch endpoint takes at once. */
const BATCH_SIZE = 50;
/** The service refuses events older than 30 days; an hour's margin for the device's clock. */
const MAX_AGE_MS = 30 * 86_400_000 - 3_600_000;

const isoSeconds = (date: Date) => `${date.toISOString().slice(0, 19)}Z`;

/**
 * Interface events, queued in storage (a restart keeps them) and sent in batches. Neither a crash
 * nor a lost answer counts an event twice: a batch's key is stored with it before it is sent, and
 * its events leave the queue only once the service confirmed them and the removal is saved.
 */
export function eventsArea({ api, storage }: ClientContext, options: EventOptions = {}) {
  const maxQueued = options.maxQueued ?? 1000;
  const step = serialized();
  const read = async (): Promise<QueueState> => ({ events: [], dropped: { full: 0, tooOld: 0, invalid: 0 }, ...(await readJson<QueueState>(storage, STORAGE_KEYS.events)) });
  const change = <T>(edit: (state: QueueState) => T) =>
    step(async () => {
      const state = await read();
      const result = edit(state);
      await writeJson(storage, STORAGE_KEYS.events, state);
      return result;
    });

  let flushing: Promise<FlushResult> | undefined;

  /** The next batch to send: the stored one (a send that never got its answer), else a new one. */
  const nextBatch = () =>
    change((state) => {
      if (!state.batch) {
        const oldest = Date.now() - MAX_AGE_MS;
        const fresh = state.events.filter((event) => Date.parse(event.occurredAt) >= oldest);
        state.dropped.tooOld += state.events.length - fresh.length;
        state.events = fresh;
        if (fresh.length > 0) state.batch = { key: newKey(), events: state.events.splice(0, BATCH_SIZE) };
      }
      return state.batch;
    });

  async function sendAll(): Promise<FlushResult> {
    let sent = 0;
    for (;;) {
      let batch: QueueState['batch'];
      try {
        batch = await nextBatch();
        if (!batch) return { sent, ...(await pending()) };
        const { response, error } = await api.POST('/behavior/events/batch', {
          body: { events: batch.events } as BatchBody,
          params: { header: { 'Idempotency-Key': batch.key } },
        });
        const key = batch.key;
        if (response.ok) {
          sent += batch.events.length;
          await change((state) => {
            if (state.batch?.key === key) delete state.batch;
          });
          continue;
        }
        const refusal = await apiErrorOf(response, error ?? null);
        if (response.status !== 400 && response.status !== 422) throw refusal;
        // Invalid as sent: sending it again would be refused again. The events the answer names
        // (`details`: body.events.<i>...) are dropped and reported; the others of the batch, which
        // the service did not store either, go back to the head of the queue.
        const named = new Set((refusal.details ?? []).map((detail) => /^body\.events\.(\d+)/.exec(detail.path)?.[1]).filter((index) => index !== undefined).map(Number));
        const keep = named.size > 0 ? batch.events.filter((_, index) => !named.has(index)) : [];
        const dropped = batch.events.length - keep.length;
        await change((state) => {
          if (state.batch?.key !== key) return;
          delete state.batch;
          state.events.unshift(...keep);
          state.dropped.invalid += dropped;
          state.lastRefusal = { status: refusal.status, error: refusal.error, message: refusal.message, events: dropped };
        });
      } catch (error) {
        // Offline, the service unavailable, or signed out: the batch waits, with its key.
        return { sent, ...(await pending()), error: error as Error };
      }
    }
  }

  async function pending(): Promise<PendingEvents> {
    const state = await read();
    return { count: state.events.length + (state.batch?.events.length ?? 0), dropped: state.dropped, ...(state.lastRefusal ? { lastRefusal: state.lastRefusal } : {}) };
  }

  const flush = (): Promise<FlushResult> => (flushing ??= sendAll().finally(() => (flushing = undefined)));

  return {
    /**
     * Queues an event with the time it happened (now, or `occurredAt`: a choice made on the
     * glasses while the phone was away); sends the queue by itself once a batch's worth (50) is
     * waiting.
     */
    async track(eventType: EventType, eventValue: string, options: { occurredAt?: Date | string } = {}): Promise<void> {
      const occurredAt = isoSeconds(options.occurredAt === undefined ? new Date() : new Date(options.occurredAt));
      const waiting = await change((state) => {
        state.events.push({ eventType, eventValue, occurredAt });
        const over = state.events.length + (state.batch?.events.length ?? 0) - maxQueued;
        if (over > 0) {
          state.events.splice(0, over);
          state.dropped.full += over;
        }
        return state.events.length;
      });
      if (waiting >= BATCH_SIZE) void flush();
    },
    /**
     * Sends every queued event, 50 at a time. Never throws: what could not be sent waits for the
     * next flush, and the answer says why (`error`).
     */
    flush,
    /** How many events wait, and how many were dropped (and why). */
    pending,
  };
}

export interface PendingEvents {
  count: number;
  dropped: DroppedEvents;
  /** The last batch the service refused as invalid. */
  lastRefusal?: { status: number; error: string; message: string; events: number };
}

export interface FlushResult extends PendingEvents {
  /** Events the service confirmed during this flush. */
  sent: number;
  /** Why the flush stopped early (offline, service unavailable, signed out); the events wait. */
  error?: Error;
}

export type Events = ReturnType<typeof eventsArea>;
