import { createHash } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { ValidationError } from '../errors';
import type { Database } from './client';
import { LIST_INDEX_SORT_KEY, PARTITION_KEY, SORT_KEY } from './table';
import type { LIST_INDEX_NAME } from './table';

/**
 * How one listing lies in a user's partition: the sort attribute it is ordered by (the table's
 * SK, or the ByCreated index's LSK), the prefix of that attribute its items share, and the exact
 * shape of their keys, against which a cursor is checked.
 */
export interface ListShape {
  index?: typeof LIST_INDEX_NAME;
  prefix: string;
  /** The full form of the ordering attribute (SK, or LSK on the index). */
  sortKey: RegExp;
  /** On the index only: the full form of the item's SK. */
  tableSortKey?: RegExp;
}

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
  /**
   * What else the cursor is bound to (a search's query and filters, as `bindingOf` digests them):
   * its cursors carry it, and a cursor of the same list with another binding, or none, is refused.
   */
  binding?: string | undefined;
}

export interface Page<T> {
  items: T[];
  /** Present when more items may follow; absent only at the end of the list. */
  nextCursor?: string;
}

type Key = Record<string, string>;

/** The cursor field holding a page request's binding. */
const BINDING_FIELD = 'for';

/** A short digest of what a cursor is bound to: equal inputs, equal digests. */
export function bindingOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 16);
}

const MAX_CURSOR_LENGTH = 2048;

/** A cursor is the base64url JSON of the key to continue after: opaque to clients, not secret. */
export function encodeCursor(key: Key, binding?: string): string {
  return Buffer.from(JSON.stringify(binding === undefined ? key : { ...key, [BINDING_FIELD]: binding }), 'utf8').toString('base64url');
}

const invalidCursor = (reason: string) =>
  new ValidationError('Invalid request: query.cursor is not a cursor of this list.', [{ path: 'query.cursor', message: reason }]);

/**
 * Reads a cursor back, accepting only the exact key shape this list produces, in the caller's
 * own partition. A cursor is not signed: it can only position a Query inside the caller's own
 * partition and prefix, so a forged one could at worst skip the caller's own items; refusing every
 * other shape keeps malformed input out of DynamoDB and answers it with a clear 400.
 */
export function decodeCursor(cursor: string, partition: string, shape: ListShape, binding?: string): Key {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw invalidCursor('is not a cursor');
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('is not a cursor');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidCursor('is not a cursor');
  const { [BINDING_FIELD]: boundTo, ...key } = value as Key;
  if (boundTo !== binding) throw invalidCursor(binding === undefined || boundTo === undefined ? 'belongs to another list' : 'belongs to another search');
  const entries = Object.entries(key);
  const expected = shape.index ? [PARTITION_KEY, SORT_KEY, LIST_INDEX_SORT_KEY] : [PARTITION_KEY, SORT_KEY];
  if (entries.length !== expected.length || !expected.every((name) => typeof key[name] === 'string')) {
    throw invalidCursor('is not a cursor');
  }
  if (key[PARTITION_KEY] !== partition) throw invalidCursor('belongs to another account');
  const ordering = shape.index ? key[LIST_INDEX_SORT_KEY]! : key[SORT_KEY]!;
  if (!ordering.startsWith(shape.prefix) || !shape.sortKey.test(ordering)) throw invalidCursor('belongs to another list');
  if (shape.index && !shape.tableSortKey?.test(key[SORT_KEY]!)) throw invalidCursor('belongs to another list');
  // Canonical form only, so one position has one cursor.
  if (encodeCursor(key, binding) !== cursor) throw invalidCursor('is not a cursor');
  return key;
}

export const keyOf = (item: Record<string, NativeAttributeValue>, shape: ListShape): Key => {
  const names = shape.index ? [PARTITION_KEY, SORT_KEY, LIST_INDEX_SORT_KEY] : [PARTITION_KEY, SORT_KEY];
  return Object.fromEntries(names.map((name) => [name, String(item[name])]));
};

/**
 * One page of a listing, newest first, strongly consistent. It asks for one item more than the
 * limit, so that a page ending exactly at the end of the list carries no cursor (no empty last
 * page); when DynamoDB stops early at its 1 MB page size, the page is shorter and the cursor
 * continues where DynamoDB stopped.
 */
export async function queryPage(
  db: Database,
  partition: string,
  shape: ListShape,
  request: PageRequest,
): Promise<Page<Record<string, NativeAttributeValue>>> {
  const startKey = request.cursor === undefined ? undefined : decodeCursor(request.cursor, partition, shape);
  const sortAttribute = shape.index ? LIST_INDEX_SORT_KEY : SORT_KEY;
  const result = await db.client.send(
    new QueryCommand({
      TableName: db.tableName,
      ...(shape.index ? { IndexName: shape.index } : {}),
      KeyConditionExpression: '#pk = :pk AND begins_with(#sort, :prefix)',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sort': sortAttribute },
      ExpressionAttributeValues: { ':pk': partition, ':prefix': shape.prefix },
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: request.limit + 1,
      ...(startKey ? { ExclusiveStartKey: startKey } : {}),
    }),
  );
  const items = result.Items ?? [];
  if (items.length > request.limit) {
    const page = items.slice(0, request.limit);
    return { items: page, nextCursor: encodeCursor(keyOf(page[page.length - 1]!, shape)) };
  }
  return result.LastEvaluatedKey
    ? { items, nextCursor: encodeCursor(keyOf(result.LastEvaluatedKey, shape)) }
    : { items };
}

/**
 * The sort keys of a partition that start with `prefix` (ending in `#`), as a key range rather
 * than `begins_with`: the same items, but DynamoDB Local answers `begins_with` by going through
 * the whole partition (see readStats). `TRX$` follows every `TRX#...` key and is no key itself.
 */
export const sortKeyRange = (prefix: string) => ({ from: prefix, to: `${prefix.slice(0, -1)}$` });

/** One strongly consistent Query of a sort-key range of a partition: at most `limit` items (and 1 MB), after `start`. */
export function queryRange(
  db: Database,
  partition: string,
  range: { from: string; to: string },
  options: { limit?: number; start?: Key; newestFirst?: boolean } = {},
) {
  return db.client.send(
    new QueryCommand({
      TableName: db.tableName,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
      ExpressionAttributeValues: { ':pk': partition, ':from': range.from, ':to': range.to },
      ConsistentRead: true,
      ...(options.newestFirst ? { ScanIndexForward: false } : {}),
      ...(options.limit === undefined ? {} : { Limit: options.limit }),
      ...(options.start ? { ExclusiveStartKey: options.start } : {}),
    }),
  );
}
