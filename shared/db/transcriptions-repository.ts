import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { accountIsCurrent, USER_WRITE_RETRY } from './account-guard';
import type { AccountRef } from './account-guard';
import type { Database } from './client';
import { keys, sortKeyPrefix } from './keys';
import { decodeCursor, encodeCursor, keyOf, queryPage, queryRange, sortKeyRange } from './pagination';
import type { ListShape, Page, PageRequest } from './pagination';
import { PARTITION_KEY, SORT_KEY } from './table';
import { writeAtomically } from './transactions';
import type { GuardedWrite } from './transactions';
import { usageChange, usageMove } from './usage-repository';
import type * as z from 'zod/mini';
import type { transcriptionRecordSchema } from '../api/schemas';

/**
 * A record as the API answers it (seed 2.3; `startedAt`: when the recording began, `createdAt`
 * unless the app said otherwise). `publicRecord` copies exactly these fields.
 */
export type TranscriptionRecord = z.output<typeof transcriptionRecordSchema>;

/** A record as stored: where it sorts and which revision it is, for conditional edits. */
export interface StoredRecord extends TranscriptionRecord {
  createdAtMs: string;
  revision: number;
  /**
   * The calendar date its usage is counted on: the day of `startedAt` in the account's time zone
   * when it was saved (or its start last moved). Edits and deletes change that day's usage, so a
   * later change of time zone never moves usage already counted. Records saved before time zones
   * have none: theirs is the UTC date of `createdAt`, as it was counted then.
   */
  usageDate?: string;
}

/** Thrown when a record changed (or went) between reading it and writing it. */
export class StaleRecord extends Error {}

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
});

const toStored = (item: Record<string, unknown>): StoredRecord => ({
  ...publicRecord(item as unknown as TranscriptionRecord),
  createdAtMs: String(item.createdAtMs),
  revision: Number(item.revision),
  ...(typeof item.usageDate === 'string' ? { usageDate: item.usageDate } : {}),
});

export const usageDay = (record: StoredRecord) => record.usageDate ?? record.createdAt.slice(0, 10);

const recordKey = (record: StoredRecord) => keys.transcription(record.userId, record.createdAtMs, record.transcriptionRecordId);

const recordItem = (record: StoredRecord) => ({ ...recordKey(record), ...record });

/**
 * Saves a new record with its id pointer and its usage, in one transaction with the account
 * check and `alongside` (an idempotency claim). Records sort by creation time in the table, so a
 * read by id goes through the pointer `RECORD#<id>`, which holds the record's sort key.
 */
export async function insertRecord(db: Database, account: AccountRef, record: StoredRecord, alongside: GuardedWrite[]): Promise<void> {
  await writeAtomically(
    db,
    [
      accountIsCurrent(db, account),
      ...alongside,
      {
        item: {
          Put: {
            TableName: db.tableName,
            Item: recordItem(record),
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
      ...usageChange(db, record.userId, usageDay(record), record.durationSeconds),
    ],
    USER_WRITE_RETRY,
  );
}

/** A record of this user by id; another user's id is simply not in this partition. */
export async function findRecord(db: Database, userId: number, id: number): Promise<StoredRecord | undefined> {
  const pointer = await db.client.send(
    new GetCommand({ TableName: db.tableName, Key: keys.transcriptionPointer(userId, id), ConsistentRead: true }),
  );
  if (!pointer.Item) return undefined;
  const result = await db.client.send(
    new GetCommand({
      TableName: db.tableName,
      Key: { [PARTITION_KEY]: keys.userPartition(userId), [SORT_KEY]: String(pointer.Item.recordKey) },
      ConsistentRead: true,
    }),
  );
  return result.Item ? toStored(result.Item) : undefined;
}

/** Conditioned on the revision that was read, so the usage delta is computed from what is replaced. */
const unchangedSince = (db: Database, current: StoredRecord) => ({
  TableName: db.tableName,
  ConditionExpression: 'revision = :revision',
  ExpressionAttributeValues: { ':revision': current.revision },
});

/** Replaces a record with its edited version; its usage follows a changed duration or day. */
export async function replaceRecord(db: Database, account: AccountRef, current: StoredRecord, next: StoredRecord): Promise<void> {
  await writeAtomically(
    db,
    [
      accountIsCurrent(db, account),
      {
        item: { Put: { ...unchangedSince(db, current), Item: recordItem({ ...next, revision: current.revision + 1 }) } },
        onConditionFailed: () => new StaleRecord(),
      },
      ...usageMove(db, current.userId, { date: usageDay(current), seconds: current.durationSeconds }, { date: usageDay(next), seconds: next.durationSeconds }),
    ],
    USER_WRITE_RETRY,
  );
}

/** Deletes a record and its pointer and takes its duration off the usage of its day. */
export async function deleteRecord(db: Database, account: AccountRef, current: StoredRecord): Promise<void> {
  await writeAtomically(
    db,
    [
      accountIsCurrent(db, account),
      {
        item: { Delete: { ...unchangedSince(db, current), Key: recordKey(current) } },
        onConditionFailed: () => new StaleRecord(),
      },
      {
        item: {
          Delete: { TableName: db.tableName, Key: keys.transcriptionPointer(current.userId, current.transcriptionRecordId) },
        },
      },
      ...usageChange(db, current.userId, usageDay(current), -current.durationSeconds),
    ],
    USER_WRITE_RETRY,
  );
}

/** The user's records, newest first. */
export async function listRecords(db: Database, userId: number, page: PageRequest): Promise<Page<TranscriptionRecord>> {
  const result = await queryPage(db, keys.userPartition(userId), TRANSCRIPTION_LIST, page);
  return { ...result, items: result.items.map((item) => publicRecord(item as unknown as TranscriptionRecord)) };
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
    record: publicRecord(item as unknown as TranscriptionRecord),
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
