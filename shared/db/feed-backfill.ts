import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { AccountGone, atNextSequenceOf, raiseSequence, SEQUENCE_RETRY } from './change-sequence';
import type { Database } from './client';
import { sortKeyPrefix } from './keys';
import { PARTITION_KEY, SORT_KEY } from './table';
import { writeAtomically } from './transactions';
import { toStored, upsertEntry } from './transcriptions-repository';

/**
 * Records saved before the change feed existed (issue 36) have no feed entry and no change
 * number, so a device's walk from the beginning would not bring them. The backfill gives each such
 * record its entry at the account's next change number, as if it had just been changed, in one
 * transaction with the record and the account's sequence:
 *
 * - the record must still lack a number: a record changed (or deleted) since the scan read it got
 *   its entry, or its tombstone, from that change, and is left alone;
 * - the account must still exist (its profile): an account being deleted is skipped, and its
 *   purge removes the record;
 * - the number is taken like any change's (change-sequence.ts), so a device already following the
 *   feed receives the backfilled records as ordinary upserts after its cursor.
 *
 * Running it twice adopts nothing the second time. It reads the table with a Scan: a one-off
 * migration run by an operator (`npm run backfill:feed`, docs/sync.md), never by a request.
 */
type Item = Record<string, NativeAttributeValue>;

/** The record already has its change number: changed, deleted or adopted since it was read. */
class AlreadyInFeed extends Error {}

export interface BackfillResult {
  adopted: number;
  skipped: number;
}

/** Every record item without a change number, a Scan page at a time (one segment of `segments`). */
export async function* recordsOutsideFeed(db: Database, segment = 0, segments = 1): AsyncGenerator<Item> {
  let start: Item | undefined;
  do {
    const page = await db.client.send(
      new ScanCommand({
        TableName: db.tableName,
        FilterExpression: 'begins_with(#sk, :records) AND attribute_not_exists(changeSeq)',
        ExpressionAttributeNames: { '#sk': SORT_KEY },
        ExpressionAttributeValues: { ':records': sortKeyPrefix.transcription },
        ConsistentRead: true,
        Segment: segment,
        TotalSegments: segments,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    yield* page.Items ?? [];
    start = page.LastEvaluatedKey;
  } while (start);
}

/** Gives one record found by the scan its feed entry; false when it no longer needs one (see above). */
export async function adoptIntoFeed(db: Database, item: Item): Promise<boolean> {
  const record = toStored(item);
  try {
    await atNextSequenceOf(db, record.userId, 0, (changeSeq) =>
      writeAtomically(
        db,
        [
          raiseSequence(db, record.userId, changeSeq),
          {
            item: {
              Update: {
                TableName: db.tableName,
                Key: { [PARTITION_KEY]: item[PARTITION_KEY], [SORT_KEY]: item[SORT_KEY] },
                UpdateExpression: 'SET changeSeq = :changeSeq',
                // Still there, and still outside the feed: a change since the scan wrote its own entry.
                ConditionExpression: 'attribute_exists(#pk) AND attribute_not_exists(changeSeq)',
                ExpressionAttributeNames: { '#pk': PARTITION_KEY },
                ExpressionAttributeValues: { ':changeSeq': changeSeq },
              },
            },
            onConditionFailed: () => new AlreadyInFeed(),
          },
          { item: { Put: { TableName: db.tableName, Item: upsertEntry(record, changeSeq) } } },
        ],
        SEQUENCE_RETRY,
      ),
    );
    return true;
  } catch (error) {
    if (error instanceof AlreadyInFeed || error instanceof AccountGone) return false;
    throw error;
  }
}

/** The whole backfill: every record outside the feed adopted, `segments` scan segments in parallel. */
export async function backfillChangeFeed(db: Database, options: { segments?: number; onProgress?: (done: BackfillResult) => void } = {}): Promise<BackfillResult> {
  const result: BackfillResult = { adopted: 0, skipped: 0 };
  const segments = options.segments ?? 1;
  await Promise.all(
    Array.from({ length: segments }, async (_, segment) => {
      for await (const item of recordsOutsideFeed(db, segment, segments)) {
        if (await adoptIntoFeed(db, item)) result.adopted++;
        else result.skipped++;
        if ((result.adopted + result.skipped) % 100 === 0) options.onProgress?.({ ...result });
      }
    }),
  );
  return result;
}
