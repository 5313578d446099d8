import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import type { Database } from './client';
import { toDevice } from './devices-repository';
import type { Device } from './devices-repository';
import { toEvent } from './events-repository';
import type { BehaviorEvent } from './events-repository';
import { keys, sortKeyPrefix } from './keys';
import { decodeCursor, encodeCursor, keyOf, queryRange, sortKeyRange } from './pagination';
import type { ListShape } from './pagination';
import { LIST_INDEX_SORT_KEY, PARTITION_KEY, SORT_KEY } from './table';
import { recordOfItem } from './transcriptions-repository';
import type { TranscriptionRecord } from './transcriptions-repository';

/**
 * The export's walk through a user's partition: the records oldest first, then the events, each
 * type's oldest first (types in the order of their names: the table keeps events by type). A
 * cursor is the key to continue after; `TRX#` and `EVENT#` alone start a part from its beginning.
 */
const ISO_MS = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z';
export const EXPORT_WALK: ListShape = {
  prefix: '',
  sortKey: new RegExp(`^(?:TRX#|TRX#${ISO_MS}#\\d{16}|EVENT#|EVENT#[a-z_]{1,40}#${ISO_MS}#\\d{16})$`),
};

const RECORDS = sortKeyRange(sortKeyPrefix.transcription);
const EVENTS = sortKeyRange('EVENT#');

/** The largest stored event: a value or a 200-character location of 4-byte characters, with its keys. */
const MAX_EVENT_ITEM_BYTES = 1024;
/** Below this much room a page ends rather than start the events with a handful. */
const MIN_EVENT_ROOM_BYTES = 16 * 1024;

export interface ExportItems {
  transcriptions: TranscriptionRecord[];
  events: BehaviorEvent[];
  nextCursor?: string;
}

/** The bytes an item adds to the page's JSON (with its comma). */
const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value)) + 1;

/**
 * One page of the walk: as many records, then events, as fit in `roomBytes` of JSON, from one or
 * two Queries that each read at most 1 MB (DynamoDB's page, which DynamoDB Local also keeps when
 * no filter is involved); the events' Query is limited to what the room left can hold, so a page
 * reads about as much as it answers. A page always holds at least one item when any remains.
 */
export async function readExportItems(db: Database, userId: number, cursor: string | undefined, roomBytes: number): Promise<ExportItems> {
  const partition = keys.userPartition(userId);
  let start: Record<string, string> | undefined = cursor === undefined ? undefined : decodeCursor(cursor, partition, EXPORT_WALK);
  const page: ExportItems = { transcriptions: [], events: [] };
  let room = roomBytes;
  const query = async (range: { from: string; to: string }, limit?: number) =>
    queryRange(db, partition, range, { ...(limit === undefined ? {} : { limit }), ...(start ? { start } : {}) });
  /** Adds items while they fit; the cursor of where the page stops, or undefined when all fitted. */
  const take = <T>(items: Record<string, NativeAttributeValue>[], map: (item: Record<string, NativeAttributeValue>) => T, into: T[], startOver: string) => {
    let last: Record<string, NativeAttributeValue> | undefined;
    for (const item of items) {
      const value = map(item);
      const bytes = jsonBytes(value);
      const empty = page.transcriptions.length === 0 && page.events.length === 0 && room === roomBytes;
      if (bytes > room && !empty) return encodeCursor(last ? keyOf(last, EXPORT_WALK) : start ?? { [PARTITION_KEY]: partition, [SORT_KEY]: startOver });
      room -= bytes;
      into.push(value);
      last = item;
    }
    return undefined;
  };

  if (start === undefined || String(start[SORT_KEY]).startsWith(sortKeyPrefix.transcription)) {
    const result = await query(RECORDS);
    const stop = take(result.Items ?? [], recordOfItem, page.transcriptions, RECORDS.from);
    if (stop) return { ...page, nextCursor: stop };
    if (result.LastEvaluatedKey) return { ...page, nextCursor: encodeCursor(keyOf(result.LastEvaluatedKey, EXPORT_WALK)) };
    start = undefined;
  }
  if (room < MIN_EVENT_ROOM_BYTES) return { ...page, nextCursor: encodeCursor({ [PARTITION_KEY]: partition, [SORT_KEY]: EVENTS.from }) };
  const result = await query(EVENTS, Math.max(1, Math.floor(room / MAX_EVENT_ITEM_BYTES)));
  const stop = take(result.Items ?? [], toEvent, page.events, EVENTS.from);
  if (stop) return { ...page, nextCursor: stop };
  return result.LastEvaluatedKey ? { ...page, nextCursor: encodeCursor(keyOf(result.LastEvaluatedKey, EXPORT_WALK)) } : page;
}

/**
 * Every device of the user, newest binding first as their list orders them, from the table
 * itself (its `DEVICE#` items, one Query: a device item is about 200 bytes, so thousands fit in
 * DynamoDB's 1 MB), so the export needs no grant on the list index.
 */
export async function readAllDevices(db: Database, userId: number): Promise<Device[]> {
  const result = await queryRange(db, keys.userPartition(userId), sortKeyRange(sortKeyPrefix.device));
  return (result.Items ?? [])
    .sort((a, b) => String(b[LIST_INDEX_SORT_KEY]).localeCompare(String(a[LIST_INDEX_SORT_KEY])))
    .map(toDevice);
}
