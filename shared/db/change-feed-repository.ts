import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import type * as z from 'zod/mini';
import type { recordChangeSchema } from '../api/schemas';
import type { Database } from './client';
import { keys, padId, sortKeyPrefix } from './keys';
import { queryRange, sortKeyRange } from './pagination';
import { PARTITION_KEY, SORT_KEY } from './table';
import { backOff } from './transactions';
import { recordOfItem } from './transcriptions-repository';

/** One entry of the change feed, as the API answers it. */
export type RecordChange = z.output<typeof recordChangeSchema>;

/** What one read of the feed gave: the changes, the number of the last one, and whether more follow. */
export interface ChangeBatch {
  changes: RecordChange[];
  /** The change number the next read continues after: the last change answered, or `after` for none. */
  last: number;
  /** More entries follow (DynamoDB stopped at the limit or its 1 MB, or the page's room ran out). */
  more: boolean;
}

type Item = Record<string, NativeAttributeValue>;

const FEED = sortKeyRange(sortKeyPrefix.recordChange);

/** The bytes `{"type":"upsert","record":...},` adds to a page beyond the record's own JSON. */
const UPSERT_FRAME_BYTES = 28;
/** The bytes a change adds to the page's JSON (with its comma). */
const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value)) + 1;

const tombstoneChange = (item: Item): RecordChange => ({
  type: 'delete',
  transcriptionRecordId: Number(item.transcriptionRecordId),
  clientRecordId: typeof item.clientRecordId === 'string' ? item.clientRecordId : null,
  // A tombstone holds the revision of the deletion as the API answers it.
  revision: Number(item.revision),
  deletedAt: String(item.deletedAt),
});

const sequenceOf = (item: Item) => Number(String(item[SORT_KEY]).slice(sortKeyPrefix.recordChange.length));

/** BatchGetItem's most keys per request. */
const BATCH_GET_KEYS = 100;
const BATCH_GET_ATTEMPTS = 5;

/** The records at these sort keys of the partition, strongly consistent, by sort key (a record deleted meanwhile is absent). */
async function readRecords(db: Database, partition: string, sortKeys: string[]): Promise<Map<string, Item>> {
  const found = new Map<string, Item>();
  let pending: Item[] = sortKeys.map((sortKey) => ({ [PARTITION_KEY]: partition, [SORT_KEY]: sortKey }));
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 0) await backOff(attempt);
    if (attempt >= BATCH_GET_ATTEMPTS) throw new Error('BatchGetItem kept leaving keys unprocessed');
    const batch = pending.slice(0, BATCH_GET_KEYS);
    const result = await db.client.send(new BatchGetCommand({ RequestItems: { [db.tableName]: { Keys: batch, ConsistentRead: true } } }));
    for (const item of result.Responses?.[db.tableName] ?? []) found.set(String(item[SORT_KEY]), item);
    pending = [...(result.UnprocessedKeys?.[db.tableName]?.Keys ?? []), ...pending.slice(BATCH_GET_KEYS)];
  }
  return found;
}

/**
 * The account's feed entries after change number `after`, in the order of their numbers (which is
 * the order their changes committed in: change-sequence.ts), at most `limit` and at most
 * `roomBytes` of JSON. Each record has one entry (its latest change), so this is one strongly
 * consistent Query of the base table whatever the history's length. A small record travels in its
 * entry as of that change; larger ones (and entries written before entries held copies) are read
 * with one BatchGetItem of those that fit the room (each entry knows its record's size), none
 * when there are none. A record read that way and changed between the two reads is answered as it
 * is now (its newer entry follows later and answers it again); one deleted meanwhile is left out
 * (its tombstone follows).
 * A read answers at least one change when any follows.
 */
export async function readChanges(db: Database, userId: number, after: number, limit: number, roomBytes: number): Promise<ChangeBatch> {
  const partition = keys.userPartition(userId);
  const result = await queryRange(db, partition, { from: `${sortKeyPrefix.recordChange}${padId(after + 1)}`, to: FEED.to }, { limit });
  const entries = result.Items ?? [];
  // The entries whose changes fit the room, by the sizes they carry.
  let room = roomBytes;
  let fitting = 0;
  for (const entry of entries) {
    const bytes = entry.change === 'delete' ? jsonBytes(tombstoneChange(entry)) : Number(entry.bytes) + UPSERT_FRAME_BYTES;
    if (bytes > room && fitting > 0) break;
    room -= bytes;
    fitting++;
  }
  const chosen = entries.slice(0, fitting);
  // Small records travel in their entries; only the larger ones are read beside the page.
  const upserts = chosen.filter((entry) => entry.change !== 'delete' && entry.record === undefined).map((entry) => String(entry.recordKey));
  const records = upserts.length === 0 ? new Map<string, Item>() : await readRecords(db, partition, upserts);

  const changes: RecordChange[] = [];
  let last = after;
  room = roomBytes;
  for (const entry of chosen) {
    let change: RecordChange | undefined;
    if (entry.change === 'delete') change = tombstoneChange(entry);
    else {
      const record = (entry.record as Item | undefined) ?? records.get(String(entry.recordKey));
      change = record && { type: 'upsert', record: recordOfItem(record) };
    }
    if (change) {
      // A record that grew since its entry was written may no longer fit: the page ends before it.
      const bytes = jsonBytes(change);
      if (bytes > room && changes.length > 0) return { changes, last, more: true };
      room -= bytes;
      changes.push(change);
    }
    last = sequenceOf(entry);
  }
  return { changes, last, more: fitting < entries.length || result.LastEvaluatedKey !== undefined };
}
