import { readForAccount } from '../db/account-guard';
import type { AccountRef } from '../db/account-guard';
import { insertEvents, listEvents, readStats } from '../db/events-repository';
import type { BehaviorEvent, TypeStats } from '../db/events-repository';
import { allocateId } from '../db/id-allocator';
import type { Page, PageRequest } from '../db/pagination';
import type { GuardedWrite } from '../db/transactions';
import { ValidationError } from '../errors';
import { isoSeconds } from '../ports/clock';
import type { ServiceContext } from '../service-context';
// The event types from their own module: the request schemas are built at import, and the
// functions that only read events (stats, the lists) have no request body to validate.
import { GENERAL_EVENT_TYPES, LOGIN_EVENT_TYPE } from '../api/event-types';
import type { EventType, GeneralEventType } from '../api/event-types';
import type { EventBatchInput, GeneralEventInput } from './schemas';

type EventInput = { eventType: EventType; eventValue: string | null; location: string | null; occurredAt?: Date };

const DAY_MS = 86_400_000;
/** How far ahead a phone's clock may be, and how long an app may hold events it could not send. */
const OCCURRED_AT_AHEAD_MS = 5 * 60_000;
const OCCURRED_AT_BACK_DAYS = 30;

/** An `occurredAt` the app sent (the schema checked its form), checked against the clock. */
function occurredAtOf(ctx: ServiceContext, occurredAt: string | undefined, path: string): Date | undefined {
  if (occurredAt === undefined) return undefined;
  const at = new Date(occurredAt);
  const now = ctx.clock.now().getTime();
  let problem: string | undefined;
  // A calendar moment written as given: 2026-02-30 parses to March, and is refused.
  if (!Number.isFinite(at.getTime()) || at.toISOString().slice(0, 19) !== occurredAt.slice(0, 19)) problem = 'is not a real moment';
  else if (at.getTime() > now + OCCURRED_AT_AHEAD_MS) problem = 'must not be more than 5 minutes in the future';
  else if (at.getTime() < now - OCCURRED_AT_BACK_DAYS * DAY_MS) problem = `must not be more than ${OCCURRED_AT_BACK_DAYS} days ago`;
  if (problem) throw new ValidationError(`Invalid request: ${path} ${problem}`, [{ path, message: problem }]);
  return at;
}

/**
 * Writes events in one transaction, stamped with the time they arrive and ordered as given: ids
 * are handed out in that order. An event's `occurredAt` is when the app says it happened (when it
 * arrived without one); the latest `occurredAt` of a type, then the highest id, is its lastValue.
 * `alongside` joins the transaction (the handler stores its response for Idempotency-Key replays
 * there); the service answers no HTTP envelope of its own.
 */
async function record(ctx: ServiceContext, account: AccountRef, inputs: readonly EventInput[], alongside: GuardedWrite[]): Promise<void> {
  const now = ctx.clock.now();
  const events = [];
  for (const { occurredAt = now, ...input } of inputs) {
    events.push({
      eventId: await allocateId(ctx.db, 'event'),
      ...input,
      createdAt: isoSeconds(now),
      createdAtMs: now.toISOString(),
      occurredAt: isoSeconds(occurredAt),
      occurredAtMs: occurredAt.toISOString(),
    });
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
  const occurredAt = occurredAtOf(ctx, input.occurredAt, 'body.occurredAt');
  return record(ctx, account, [{ eventType: input.eventType, eventValue: input.eventValue, location: null, ...(occurredAt ? { occurredAt } : {}) }], alongside);
}

/**
 * General events sent together (the app queues them and sends them when it opens): one request
 * and one transaction instead of one of each per event; all are recorded or none. Each may carry
 * the time it happened, so events queued offline do not override choices made since.
 */
export function recordEvents(ctx: ServiceContext, account: AccountRef, input: EventBatchInput, alongside: GuardedWrite[] = []) {
  const events = input.events.map((event, index) => {
    const occurredAt = occurredAtOf(ctx, event.occurredAt, `body.events.${index}.occurredAt`);
    return { eventType: event.eventType, eventValue: event.eventValue, location: null, ...(occurredAt ? { occurredAt } : {}) };
  });
  return record(ctx, account, events, alongside);
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
