import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { USER_WRITE_RETRY } from './account-guard';
import type { AccountRef } from './account-guard';
import { advanceSequence } from './change-sequence';
import type { Database } from './client';
import { keys, sortKeyPrefix } from './keys';
import { decodeCursor, encodeCursor, keyOf, queryPage, queryRange, sortKeyRange } from './pagination';
import type { ListShape, Page, PageRequest } from './pagination';
import { PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from './table';
import { writeAtomically } from './transactions';
import type { GuardedWrite } from './transactions';
import { usageChange, usageMove } from './usage-repository';
import type * as z from 'zod/mini';
import type { recordTombstoneSchema, transcriptionRecordSchema } from '../api/schemas';

/**
 * A record as the API answers it (seed 2.3; `startedAt`: when the recording began, `createdAt`
 * unless the app said otherwise; `clientRecordId` and `revision` for sync, docs/sync.md).
 * `publicRecord` copies exactly these fields.
 */
export type TranscriptionRecord = z.output<typeof transcriptionRecordSchema>;

/** What is left of a deleted record, as the API answers it. */
export type RecordTombstone = z.output<typeof recordTombstoneSchema>;

/** A record as stored: where it sorts, where its feed entry is, which day its usage counts on. */
export interface StoredRecord extends TranscriptionRecord {
  createdAtMs: string;
  /**
   * The calendar date its usage is counted on: the day of `startedAt` in the account's time zone
   * when it was saved (or its start last moved). Edits and deletes change that day's usage, so a
   * later change of time zone never moves usage already counted. Records saved before time zones
   * have none: theirs is the UTC date of `createdAt`, as it was counted then.
   */
  usageDate?: string;
  /**
   * The number of its latest change in the account's change sequence: its one feed entry is
   * `CHANGE#<changeSeq>`. Absent for records saved before the change feed.
   */
  changeSeq?: number;
}

/** Thrown when a record changed (or went) between reading it and writing it. */
export class StaleRecord extends Error {}

/** Thrown when a create's `clientRecordId` is taken: `marker` is its item, as it was. */
export class ClientRecordIdTaken extends Error {
  constructor(readonly marker: Record<string, unknown>) {
    super('clientRecordId taken');
  }
}

export const TRANSCRIPTION_LIST: ListShape = {
  prefix: sortKeyPrefix.transcription,
  sortKey: /^TRX#\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#\d{16}$/,
};

/**
 * The record without its keys and bookkeeping: the mapper from a stored record to the API's. A
 * literal, not a loop: lists build 50 per request.
 */
export const publicRecord = (record: TranscriptionRecord): TranscriptionRecord => ({
  transcriptionRecordId: record.transcriptionRecordId,
  userId: record.userId,
  recordTitle: record.recordTitle,
  text: record.text,
  textLength: record.textLength,
  language: record.language,
  durationSeconds: record.durationSeconds,
  // Records saved before `startedAt` existed began when they were saved.
  startedAt: record.startedAt ?? record.createdAt,
  createdAt: record.createdAt,
  // Absent until the record is first edited.
  updatedAt: record.updatedAt ?? null,
  // Absent on records saved before apps could name them.
  clientRecordId: record.clientRecordId ?? null,
  revision: record.revision,
});

/**
 * A stored record item (or a feed entry's copy of one) as the API answers it. Items count edits
 * in `revision` (0 on create, as they did before revisions were answered), so the API's revision
 * (1 on create) is one more, for records old and new alike.
 */
export const recordOfItem = (item: Record<string, unknown>): TranscriptionRecord =>
  publicRecord({ ...(item as unknown as TranscriptionRecord), revision: Number(item.revision ?? 0) + 1 });

export const toStored = (item: Record<string, unknown>): StoredRecord => ({
  ...recordOfItem(item),
  createdAtMs: String(item.createdAtMs),
  ...(typeof item.usageDate === 'string' ? { usageDate: item.usageDate } : {}),
  ...(item.changeSeq === undefined ? {} : { changeSeq: Number(item.changeSeq) }),
});

export const usageDay = (record: StoredRecord) => record.usageDate ?? record.createdAt.slice(0, 10);

const recordKey = (record: StoredRecord) => keys.transcription(record.userId, record.createdAtMs, record.transcriptionRecordId);

/** The record's item at change number `changeSeq` (see recordOfItem for its `revision`). */
const recordItem = (record: StoredRecord, changeSeq: number) => ({ ...recordKey(record), ...record, revision: record.revision - 1, changeSeq });

/**
 * A record whose JSON is at most this many bytes travels in its feed entry (a copy, `record`);
 * a larger one is named by reference and read beside the page. A page of the feed is then one
 * Query, as a list page is, for the records people make most (a few minutes of captions is
 * 1-3 KB): a reference-only feed made every page a Query and then a BatchGetItem, 1.8 x a list
 * page of the same 50 records (`npm run bench -- --only sync`). The copy costs the save its size
 * in write units once more; past 4 KB the second read costs less than the second write
 * (docs/sync.md).
 */
export const FEED_COPY_MAX_BYTES = 4096;

/**
 * The feed entry of a record's latest change: where the record is, how many bytes of JSON it
 * answers (so that a page of the feed knows which records fit its 1 MB before it reads them), and
 * the record itself when it is small (FEED_COPY_MAX_BYTES). The entry is written in the
 * transaction that writes the record, and replaced by the record's next change, so its copy is
 * the record as of this change.
 */
export const upsertEntry = (record: StoredRecord, changeSeq: number) => {
  const answered = publicRecord(record);
  const bytes = Buffer.byteLength(JSON.stringify(answered));
  return {
    ...keys.recordChange(record.userId, changeSeq),
    change: 'upsert',
    transcriptionRecordId: record.transcriptionRecordId,
    recordKey: recordKey(record).SK,
    bytes,
    // As items keep it (edits counted from 0: recordOfItem).
    ...(bytes <= FEED_COPY_MAX_BYTES ? { record: { ...answered, revision: record.revision - 1 } } : {}),
  };
};

/** Removes the entry of the record's previous change: the feed keeps one entry per record. */
const previousEntryRemoval = (record: StoredRecord, db: Database): GuardedWrite[] =>
  record.changeSeq === undefined ? [] : [{ item: { Delete: { TableName: db.tableName, Key: keys.recordChange(record.userId, record.changeSeq) } } }];

/** What a create with a `clientRecordId` leaves: the record it made, and the digest of its body. */
export interface ClientRecordClaim {
  requestHash: string;
  /** Epoch seconds: a marker whose tombstone expired (lazily removed by TTL) is free again. */
  now: number;
}

/**
 * Saves a new record with its id pointer, its feed entry (at the account's change number `changeSeq`)
 * and its usage, in one transaction with the account check and `alongside` (an idempotency
 * claim); with a `clientRecordId`, also its marker, claimed only if no record or tombstone holds
 * it. Records sort by creation time in the table, so a read by id goes through the pointer
 * `RECORD#<id>`, which holds the record's sort key.
 */
export async function insertRecord(
  db: Database,
  account: AccountRef,
  record: StoredRecord,
  changeSeq: number,
  alongside: GuardedWrite[],
  claim?: ClientRecordClaim,
): Promise<void> {
  await writeAtomically(
    db,
    [
      advanceSequence(db, account, changeSeq),
      ...alongside,
      {
        item: {
          Put: {
            TableName: db.tableName,
            Item: recordItem(record, changeSeq),
            // Ids are never reused; this only fails if the allocator were broken.
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
      },
      {
        item: {
          Put: {
            TableName: db.tableName,
            Item: { ...keys.transcriptionPointer(record.userId, record.transcriptionRecordId), recordKey: recordKey(record).SK },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
      },
      { item: { Put: { TableName: db.tableName, Item: upsertEntry(record, changeSeq) } } },
      ...(record.clientRecordId !== null && claim
        ? [
            {
              item: {
                Put: {
                  TableName: db.tableName,
                  Item: { ...keys.clientRecord(record.userId, record.clientRecordId), transcriptionRecordId: record.transcriptionRecordId, requestHash: claim.requestHash },
                  // Taken while its record or tombstone lives; TTL removes a marker lazily, so an expired one counts as free.
                  ConditionExpression: 'attribute_not_exists(PK) OR #ttl < :now',
                  ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
                  ExpressionAttributeValues: { ':now': claim.now },
                  ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
                },
              },
              onConditionFailed: (old: Record<string, unknown> | undefined) => new ClientRecordIdTaken(old ?? {}),
            },
          ]
        : []),
      ...usageChange(db, record.userId, usageDay(record), record.durationSeconds),
    ],
    USER_WRITE_RETRY,
  );
}

/** A record of this user by id, or its tombstone; another user's id is simply not in this partition. */
export type FoundRecord = { record: StoredRecord } | { tombstone: RecordTombstone };

const tombstoneOf = (item: Record<string, unknown>): RecordTombstone => ({
  transcriptionRecordId: Number(item.transcriptionRecordId),
  clientRecordId: typeof item.clientRecordId === 'string' ? item.clientRecordId : null,
  revision: Number(item.revision),
  deletedAt: String(item.deletedAt),
});

/**
 * Two reads: the id pointer (which holds the record's sort key, or the tombstone once deleted),
 * then the record. A deletion that commits between the two leaves the record missing and the
 * pointer a tombstone (the deletion writes both in one transaction), so a miss reads the pointer
 * again: a deleted record is answered by its tombstone whatever the timing, never as one that
 * never existed.
 */
export async function findRecord(db: Database, userId: number, id: number): Promise<FoundRecord | undefined> {
  const readPointer = async () =>
    (await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.transcriptionPointer(userId, id), ConsistentRead: true }))).Item;
  const pointer = await readPointer();
  if (!pointer) return undefined;
  if (pointer.deletedAt !== undefined) return { tombstone: tombstoneOf(pointer) };
  const result = await db.client.send(
    new GetCommand({
      TableName: db.tableName,
      Key: { [PARTITION_KEY]: keys.userPartition(userId), [SORT_KEY]: String(pointer.recordKey) },
      ConsistentRead: true,
    }),
  );
  if (result.Item) return { record: toStored(result.Item) };
  const after = await readPointer();
  return after?.deletedAt !== undefined ? { tombstone: tombstoneOf(after) } : undefined;
}

/** Conditioned on the revision that was read, so the usage delta is computed from what is replaced. */
const unchangedSince = (db: Database, current: StoredRecord) => ({
  TableName: db.tableName,
  ConditionExpression: 'revision = :revision',
  ExpressionAttributeValues: { ':revision': current.revision - 1 },
});

/**
 * Replaces a record with its edited version (its next revision), moves its feed entry to the
 * account's change number `changeSeq`; its usage follows a changed duration or day.
 */
export async function replaceRecord(db: Database, account: AccountRef, current: StoredRecord, next: StoredRecord, changeSeq: number): Promise<StoredRecord> {
  const stored: StoredRecord = { ...next, revision: current.revision + 1, changeSeq };
  await writeAtomically(
    db,
    [
      advanceSequence(db, account, changeSeq),
      {
        item: { Put: { ...unchangedSince(db, current), Item: recordItem(stored, changeSeq) } },
        onConditionFailed: () => new StaleRecord(),
      },
      { item: { Put: { TableName: db.tableName, Item: upsertEntry(stored, changeSeq) } } },
      ...previousEntryRemoval(current, db),
      ...usageMove(db, current.userId, { date: usageDay(current), seconds: current.durationSeconds }, { date: usageDay(next), seconds: next.durationSeconds }),
    ],
    USER_WRITE_RETRY,
  );
  return stored;
}

/**
 * Deletes a record and takes its duration off the usage of its day. What is left is its
 * tombstone, without content, until `expiresAt` (epoch seconds; TTL removes it lazily): in the
 * feed, as the account's change number `changeSeq` in place of the record's entry; in its pointer,
 * so a change made with If-Match answers 410; and in its `clientRecordId` marker, so a late create
 * answers 410 instead of bringing the record back.
 */
export async function deleteRecord(db: Database, account: AccountRef, current: StoredRecord, changeSeq: number, deletedAt: string, expiresAt: number): Promise<RecordTombstone> {
  const tombstone: RecordTombstone = {
    transcriptionRecordId: current.transcriptionRecordId,
    clientRecordId: current.clientRecordId,
    revision: current.revision + 1,
    deletedAt,
  };
  const remains = { ...tombstone, [TTL_ATTRIBUTE]: expiresAt };
  await writeAtomically(
    db,
    [
      advanceSequence(db, account, changeSeq),
      {
        item: { Delete: { ...unchangedSince(db, current), Key: recordKey(current) } },
        onConditionFailed: () => new StaleRecord(),
      },
      { item: { Put: { TableName: db.tableName, Item: { ...keys.transcriptionPointer(current.userId, current.transcriptionRecordId), ...remains } } } },
      { item: { Put: { TableName: db.tableName, Item: { ...keys.recordChange(current.userId, changeSeq), change: 'delete', ...remains } } } },
      ...previousEntryRemoval(current, db),
      ...(current.clientRecordId === null
        ? []
        : [
            {
              item: {
                Update: {
                  TableName: db.tableName,
                  Key: keys.clientRecord(current.userId, current.clientRecordId),
                  UpdateExpression: 'SET deletedAt = :deletedAt, revision = :revision, #ttl = :ttl',
                  ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
                  ExpressionAttributeValues: { ':deletedAt': deletedAt, ':revision': tombstone.revision, ':ttl': expiresAt },
                },
              },
            },
          ]),
      ...usageChange(db, current.userId, usageDay(current), -current.durationSeconds),
    ],
    USER_WRITE_RETRY,
  );
  return tombstone;
}

/** The tombstone a `clientRecordId` marker holds once its record was deleted. */
export const markerTombstone = (marker: Record<string, unknown>, clientRecordId: string): RecordTombstone | undefined =>
  marker.deletedAt === undefined ? undefined : { ...tombstoneOf(marker), clientRecordId };

/** The user's records, newest first. */
export async function listRecords(db: Database, userId: number, page: PageRequest): Promise<Page<TranscriptionRecord>> {
  const result = await queryPage(db, keys.userPartition(userId), TRANSCRIPTION_LIST, page);
  return { ...result, items: result.items.map(recordOfItem) };
}

/**
 * How many records one search (or filtered list) page reads at most, as well as DynamoDB's 1 MB
 * (which DynamoDB Local does not apply once a filter is involved). Issue 31's goal is a page within
 * twice a plain list page's time, and the time of a page is the time of its read (`npm run bench`,
 * "search", times the same Query at several bounds: docs/performance.md). The price of a small
 * bound is more requests for a search that walks a long history; `npm run cost` prices them.
 */
export const SEARCH_READ_ITEMS = 50;

const RECORD_RANGE = sortKeyRange(sortKeyPrefix.transcription);

/** What one bounded read of the records gave: records newest first, and where it stopped. */
export interface RecordBatch {
  records: { key: Record<string, string>; record: TranscriptionRecord }[];
  /** Where DynamoDB stopped (its item limit or its 1 MB); absent when the oldest record was read. */
  lastKey?: Record<string, string>;
}

/**
 * One bounded read of the user's records, newest first, from a cursor bound to `page.binding`
 * (the query and filters that produced it). Strongly consistent, like the list.
 */
export async function readRecordBatch(db: Database, userId: number, page: Pick<PageRequest, 'cursor' | 'binding'>): Promise<RecordBatch> {
  const partition = keys.userPartition(userId);
  const startKey = page.cursor === undefined ? undefined : decodeCursor(page.cursor, partition, TRANSCRIPTION_LIST, page.binding);
  const result = await queryRange(db, partition, RECORD_RANGE, { newestFirst: true, limit: SEARCH_READ_ITEMS, ...(startKey ? { start: startKey } : {}) });
  const records = (result.Items ?? []).map((item) => ({
    key: keyOf(item, TRANSCRIPTION_LIST),
    record: recordOfItem(item),
  }));
  return result.LastEvaluatedKey ? { records, lastKey: keyOf(result.LastEvaluatedKey, TRANSCRIPTION_LIST) } : { records };
}

/**
 * The page a batch answers: the records `accept` maps to a result, up to `limit` of them. Its
 * cursor continues after the last record looked at, so a page may hold fewer than `limit` results
 * (even none) while older records remain; it has no cursor only once the oldest was read.
 */
export function pageOfBatch<T>(batch: RecordBatch, page: Pick<PageRequest, 'limit' | 'binding'>, accept: (record: TranscriptionRecord) => T | undefined): Page<T> {
  const items: T[] = [];
  for (const [index, { key, record }] of batch.records.entries()) {
    const result = accept(record);
    if (result === undefined) continue;
    items.push(result);
    const more = index < batch.records.length - 1 || batch.lastKey !== undefined;
    if (items.length === page.limit && more) return { items, nextCursor: encodeCursor(key, page.binding) };
  }
  return batch.lastKey ? { items, nextCursor: encodeCursor(batch.lastKey, page.binding) } : { items };
}
