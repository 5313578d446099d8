import { readForAccount } from '../db/account-guard';
import type { AccountRef } from '../db/account-guard';
import { insertEvents, listEvents, readStats } from '../db/events-repository';
import type { BehaviorEvent, TypeStats } from '../db/events-repository';
import { allocateId } from '../db/id-allocator';
import type { Page, PageRequest } from '../db/pagination';
import type { GuardedWrite } from '../db/transactions';
import { isoSeconds } from '../ports/clock';
import type { ServiceContext } from '../service-context';
// The event types from their own module: the request schemas are built at import, and the
// functions that only read events (stats, the lists) have no request body to validate.
import { GENERAL_EVENT_TYPES, LOGIN_EVENT_TYPE } from './event-types';
import type { EventType, GeneralEventType } from './event-types';
import type { EventBatchInput, GeneralEventInput } from './schemas';

type EventInput = { eventType: EventType; eventValue: string | null; location: string | null };

/**
 * Writes events in one transaction, stamped with the time they arrive and ordered as given: ids
 * are handed out in that order and an event's position is its time, then its id. `alongside` joins
 * the transaction (the handler stores its response for Idempotency-Key replays there); the service
 * answers no HTTP envelope of its own.
 */
async function record(ctx: ServiceContext, account: AccountRef, inputs: readonly EventInput[], alongside: GuardedWrite[]): Promise<void> {
  const now = ctx.clock.now();
  const events = [];
  for (const input of inputs) {
    events.push({ eventId: await allocateId(ctx.db, 'event'), ...input, createdAt: isoSeconds(now), createdAtMs: now.toISOString() });
  }
  await insertEvents(ctx.db, account, events, alongside);
  for (let index = 0; index < events.length; index++) ctx.metrics.count('EventsRecorded');
}

/** A login event (seed 4.12); the sign-in endpoints do not record one themselves. */
export function recordLogin(ctx: ServiceContext, account: AccountRef, location: string, alongside: GuardedWrite[] = []) {
  return record(ctx, account, [{ eventType: LOGIN_EVENT_TYPE, eventValue: null, location }], alongside);
}

/** A general event (seed 4.14), its value already checked against its type's rule. */
export function recordEvent(ctx: ServiceContext, account: AccountRef, input: GeneralEventInput, alongside: GuardedWrite[] = []) {
  return record(ctx, account, [{ eventType: input.eventType, eventValue: input.eventValue, location: null }], alongside);
}

/**
 * General events sent together (the app queues them and sends them when it opens): one request
 * and one transaction instead of one of each per event; all are recorded or none.
 */
export function recordEvents(ctx: ServiceContext, account: AccountRef, input: EventBatchInput, alongside: GuardedWrite[] = []) {
  return record(
    ctx,
    account,
    input.events.map((event) => ({ eventType: event.eventType, eventValue: event.eventValue, location: null })),
    alongside,
  );
}

/** One type's events, newest first. */
export async function listByType(ctx: ServiceContext, account: AccountRef, eventType: EventType, page: PageRequest): Promise<Page<BehaviorEvent>> {
  return readForAccount(ctx.db, account, () => listEvents(ctx.db, account.userId, eventType, page));
}

/**
 * Seed 2.6: `loginCount`, and one entry per general type recorded at least once (in the seed's
 * order of types), from the aggregates kept with each event.
 */
export async function stats(ctx: ServiceContext, account: AccountRef) {
  return statsOf(await readForAccount(ctx.db, account, () => readStats(ctx.db, account.userId)));
}

export function statsOf(types: readonly TypeStats[]) {
  const byType = new Map(types.map((entry) => [entry.eventType, entry]));
  return {
    loginCount: byType.get(LOGIN_EVENT_TYPE)?.count ?? 0,
    events: GENERAL_EVENT_TYPES.flatMap((eventType) => {
      const entry = byType.get(eventType);
      return entry && entry.count > 0 ? [{ eventType, count: entry.count, lastValue: entry.lastValue }] : [];
    }),
  };
}

/** A setting the app restores: the last value of a general type and when it was chosen. */
export interface Setting {
  value: string;
  occurredAt: string;
}

/**
 * The app's settings from the same aggregates as the statistics: per general type ever set, its
 * `lastValue` and the `occurredAt` of that value's event (second precision, like every timestamp
 * the API answers); types never set are absent.
 */
export function settingsOf(types: readonly TypeStats[]): Partial<Record<GeneralEventType, Setting>> {
  const byType = new Map(types.map((entry) => [entry.eventType, entry]));
  const settings: Partial<Record<GeneralEventType, Setting>> = {};
  // In the seed's order of types, the order the response schema lists them in.
  for (const eventType of GENERAL_EVENT_TYPES) {
    const entry = byType.get(eventType);
    if (entry?.lastValue != null && entry.lastAt !== null) settings[eventType] = { value: entry.lastValue, occurredAt: isoSeconds(new Date(entry.lastAt)) };
  }
  return settings;
}
