import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { accountIsCurrent, USER_WRITE_RETRY } from './account-guard';
import type { AccountRef } from './account-guard';
import type { Database } from './client';
import { keys, padId, sortKeyPrefix } from './keys';
import { queryPage } from './pagination';
import type { ListShape, Page, PageRequest } from './pagination';
import { SORT_KEY } from './table';
import { writeAtomically } from './transactions';
import type { GuardedWrite } from './transactions';
import type * as z from 'zod/mini';
import type { behaviorEventSchema } from '../api/schemas';

/** An event as the API lists it (seed 2.5): `toEvent` copies exactly these fields of the stored item. */
export type BehaviorEvent = z.output<typeof behaviorEventSchema>;

export interface NewEvent extends BehaviorEvent {
  createdAtMs: string;
  /** `occurredAt` at millisecond precision, as the app sent it: the event's position among its type. */
  occurredAtMs: string;
}

export interface TypeStats {
  eventType: string;
  count: number;
  lastValue: string | null;
  /** When the event of `lastValue` happened (ISO 8601 UTC, ms); null with `lastValue`. */
  lastAt: string | null;
}

/** Thrown when the statistics of `eventType` already hold a later event than the one being recorded. */
class NewerEventRecorded extends Error {
  constructor(readonly eventType: string) {
    super(`a later ${eventType} event is recorded`);
  }
}

// One shape per event type, built on first use: a list request then compiles no pattern.
const eventLists = new Map<string, ListShape>();

export function eventList(eventType: string): ListShape {
  let shape = eventLists.get(eventType);
  if (!shape) {
    shape = {
      prefix: sortKeyPrefix.event(eventType),
      sortKey: new RegExp(`^EVENT#${eventType}#\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z#\\d{16}$`),
    };
    eventLists.set(eventType, shape);
  }
  return shape;
}

export const toEvent = (item: Record<string, unknown>): BehaviorEvent => ({
  eventId: Number(item.eventId),
  eventType: String(item.eventType),
  eventValue: (item.eventValue as string | null | undefined) ?? null,
  location: (item.location as string | null | undefined) ?? null,
  createdAt: String(item.createdAt),
  // Events recorded before apps could send the time they happened read as happening when they arrived.
  occurredAt: String(item.occurredAt ?? item.createdAt),
});

/**
 * Which of a type's events is its latest, for `lastValue`: the time it happened in ms, then its
 * id (the order it arrived in). Events recorded before `occurredAt` existed hold a position made
 * of their creation time, which is their `occurredAt`, so the positions already stored compare
 * correctly with new ones and need no migration.
 */
const position = (event: NewEvent) => `${event.occurredAtMs}#${padId(event.eventId)}`;

/**
 * The statistics of one type, changed in the transaction of its events. The count is an ADD,
 * exact under any concurrency. `lastValue` must be the value of the event that happened last,
 * which is not necessarily the last one to commit nor the last one sent (an app sends events it
 * queued offline later), so it is set only by an event positioned after the one it holds; an earlier event that commits late is counted and leaves the value alone. Login events
 * have no value: they only count. `latest` is the latest of this transaction's events of the type.
 */
function statsChange(db: Database, userId: number, latest: NewEvent, count: number, withLastValue: boolean): GuardedWrite {
  const Key = keys.eventStats(userId, latest.eventType);
  if (!withLastValue || latest.eventValue === null) {
    return {
      item: { Update: { TableName: db.tableName, Key, UpdateExpression: 'ADD eventCount :count', ExpressionAttributeValues: { ':count': count } } },
    };
  }
  return {
    item: {
      Update: {
        TableName: db.tableName,
        Key,
        UpdateExpression: 'ADD eventCount :count SET lastValue = :value, lastPosition = :position',
        ConditionExpression: 'attribute_not_exists(lastPosition) OR lastPosition < :position',
        ExpressionAttributeValues: { ':count': count, ':value': latest.eventValue, ':position': position(latest) },
      },
    },
    onConditionFailed: () => new NewerEventRecorded(latest.eventType),
  };
}

/** Per type: how many of `events` it has and the latest of them (a transaction may touch an item once). */
function byType(events: readonly NewEvent[]): Map<string, { latest: NewEvent; count: number }> {
  const types = new Map<string, { latest: NewEvent; count: number }>();
  for (const event of events) {
    const entry = types.get(event.eventType);
    if (!entry) types.set(event.eventType, { latest: event, count: 1 });
    else types.set(event.eventType, { latest: position(event) > position(entry.latest) ? event : entry.latest, count: entry.count + 1 });
  }
  return types;
}

/**
 * Records events and their statistics in one transaction with the account check and
 * `alongside`: all of them or, if any write fails, none. A type whose statistics already hold a
 * later event is written again counting only (its `lastValue` stays), the others as they were.
 */
export async function insertEvents(db: Database, account: AccountRef, events: readonly NewEvent[], alongside: GuardedWrite[]): Promise<void> {
  const types = byType(events);
  const countOnly = new Set<string>();
  const writes = (): GuardedWrite[] => [
    accountIsCurrent(db, account),
    ...alongside,
    ...events.map((event) => ({
      item: {
        Put: {
          TableName: db.tableName,
          Item: {
            ...keys.event(account.userId, event.eventType, event.createdAtMs, event.eventId),
            ...toEvent(event as unknown as Record<string, unknown>),
          },
          // Ids are never reused; this only fails if the allocator were broken.
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
    })),
    ...[...types.values()].map(({ latest, count }) => statsChange(db, account.userId, latest, count, !countOnly.has(latest.eventType))),
  ];
  // At most one more attempt per type: each failure moves one type to counting only.
  for (;;) {
    try {
      await writeAtomically(db, writes(), USER_WRITE_RETRY);
      return;
    } catch (error) {
      if (!(error instanceof NewerEventRecorded) || countOnly.has(error.eventType)) throw error;
      countOnly.add(error.eventType);
    }
  }
}

/** The user's events of one type, newest first. */
export async function listEvents(db: Database, userId: number, eventType: string, page: PageRequest): Promise<Page<BehaviorEvent>> {
  const result = await queryPage(db, keys.userPartition(userId), eventList(eventType), page);
  return { ...result, items: result.items.map(toEvent) };
}

/**
 * The statistics items of all types in one strongly consistent Query: one item per event type
 * ever recorded (seven at most), so its cost does not depend on the number of events.
 * A key range, not `begins_with`: the same items, but DynamoDB Local answers `begins_with` by
 * going through the whole partition (every record and event of the user: 2.5x slower at 5 000 of
 * each, `npm run bench`), a range from the index. `STATS$` follows every `STATS#...` key and is
 * no key itself.
 */
const STATS_RANGE_END = `${sortKeyPrefix.stats.slice(0, -1)}${String.fromCharCode(sortKeyPrefix.stats.charCodeAt(sortKeyPrefix.stats.length - 1) + 1)}`;

export async function readStats(db: Database, userId: number): Promise<TypeStats[]> {
  const result = await db.client.send(
    new QueryCommand({
      TableName: db.tableName,
      KeyConditionExpression: 'PK = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#sk': SORT_KEY },
      ExpressionAttributeValues: { ':pk': keys.userPartition(userId), ':from': sortKeyPrefix.stats, ':to': STATS_RANGE_END },
      ConsistentRead: true,
    }),
  );
  return (result.Items ?? []).map((item) => ({
    eventType: String(item[SORT_KEY]).slice(sortKeyPrefix.stats.length),
    count: Number(item.eventCount ?? 0),
    lastValue: (item.lastValue as string | null | undefined) ?? null,
    // The position of the value's event starts with its time: no attribute of its own to keep in step.
    lastAt: typeof item.lastPosition === 'string' ? item.lastPosition.slice(0, item.lastPosition.indexOf('#')) : null,
  }));
}
