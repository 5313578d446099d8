import { accountIsCurrent, USER_WRITE_RETRY } from '../../shared/db/account-guard';
import type { AccountRef } from '../../shared/db/account-guard';
import { keys } from '../../shared/db/keys';
import { writeAtomically } from '../../shared/db/transactions';
import { insertRecord, usageDay } from '../../shared/db/transcriptions-repository';
import type { StoredRecord } from '../../shared/db/transcriptions-repository';
import { usageChange } from '../../shared/db/usage-repository';
import { seedAccount } from './fixtures';
import type { SeededAccount } from './fixtures';
import { replay, waves } from './harness';
import type { Bench } from './harness';
import { median, ratio, shuffled } from './stats';
import { timedOperation } from './summary';

/**
 * Issue 36's figures: the change feed against what it replaces, side by side in shuffled rounds.
 *
 * - A feed page of 50 records (`GET /api/transcriptions/changes?limit=50`, no cursor: a new
 *   device's first page) against a list page of the same 50 records (`GET /api/transcriptions?limit=50`),
 *   each next to its DynamoDB commands replayed on the bare client.
 * - Saving a record with its feed entry against saving one as before the feed, at the repository:
 *   `insertRecord` (the account check raising the change sequence, the record, its id pointer, its
 *   feed entry and its usage, in one transaction) against the transaction the service wrote before
 *   issue 36 (the account check as a ConditionCheck, the record, its pointer and its usage). Both
 *   write a fresh record each time; the handler around them is the same code either way, so the
 *   difference is the feed's.
 * - An up-to-date device: a pull from the head's cursor, on a small and a large history: its p50,
 *   the requests it makes (one) and the DynamoDB requests behind it (at most two, the account
 *   check and one Query, whatever the history's size; `npm test` holds the count too).
 */
export const FEED_PAGE = 50;

export interface SyncSide {
  operation: string;
  p50Us: number;
  /** The same DynamoDB commands replayed on the bare client (empty for the repository-level saves). */
  bareP50Us?: number;
  dynamoRequests: number;
}

export interface UpToDateRow {
  records: number;
  p50Us: number;
  dynamoRequests: number;
}

export interface SyncResult {
  feed: SyncSide;
  list: SyncSide;
  /** Feed page p50 over the list page's (GOALS.feedPageRatio). */
  feedRatio: number;
  save: SyncSide;
  saveBefore: SyncSide;
  /** Save with the feed entry over the save before it (GOALS.feedSaveRatio). */
  saveRatio: number;
  upToDate: UpToDateRow[];
  samples: number;
}

async function bareOf(bench: Bench, once: () => Promise<number>): Promise<() => Promise<number>> {
  const plan = waves(await bench.record(once));
  return async () => {
    const started = performance.now();
    await replay(bench.bare, plan);
    return performance.now() - started;
  };
}

/** Runs every timer `iterations` times in a shuffled order each round; the p50 of each, in microseconds. */
async function shuffledRounds(timers: (() => Promise<number>)[], iterations: number): Promise<number[]> {
  for (let index = 0; index < 10; index++) for (const once of timers) await once();
  const times = timers.map(() => [] as number[]);
  for (let index = 0; index < iterations; index++) {
    for (const timer of shuffled(timers.map((_, position) => position))) times[timer]!.push(await timers[timer]!());
  }
  return times.map((values) => Math.round(median(values) * 1000));
}

const accountRef = (account: SeededAccount): AccountRef => ({
  userId: account.userId,
  tokenVersion: Number(account.authorizer.tokenVersion),
  ...(account.authorizer.sessionId ? { sessionId: account.authorizer.sessionId } : {}),
});

/** Fresh records for the saves, numbered far above the allocator's ids so nothing collides. */
function recordFactory(account: SeededAccount) {
  let next = 0;
  return (): StoredRecord => {
    next += 1;
    const now = new Date();
    return {
      transcriptionRecordId: 900_000_000 + next,
      userId: account.userId,
      recordTitle: `Bench save ${next}`,
      text: 'Good morning everyone, thanks for joining. Today we will go through the quarterly numbers.',
      textLength: 90,
      language: 'en-US',
      durationSeconds: 60,
      startedAt: now.toISOString(),
      createdAt: now.toISOString(),
      updatedAt: null,
      clientRecordId: null,
      revision: 1,
      createdAtMs: now.toISOString(),
    };
  };
}

async function measureSaves(bench: Bench, account: SeededAccount, iterations: number): Promise<{ save: SyncSide; saveBefore: SyncSide }> {
  const db = bench.app.db;
  const ref = accountRef(account);
  const nextRecord = recordFactory(account);
  // Above every number the clock-proposed sequence has handed out (microseconds).
  let changeSeq = Date.now() * 1000 + 1_000_000_000;
  const withFeed = async () => {
    const record = nextRecord();
    changeSeq += 1;
    const started = performance.now();
    await insertRecord(db, ref, record, changeSeq, []);
    return performance.now() - started;
  };
  const before = async () => {
    const record = nextRecord();
    const recordKey = keys.transcription(record.userId, record.createdAtMs, record.transcriptionRecordId);
    const started = performance.now();
    await writeAtomically(
      db,
      [
        accountIsCurrent(db, ref),
        { item: { Put: { TableName: db.tableName, Item: { ...recordKey, ...record, revision: 0 }, ConditionExpression: 'attribute_not_exists(PK)' } } },
        {
          item: {
            Put: {
              TableName: db.tableName,
              Item: { ...keys.transcriptionPointer(record.userId, record.transcriptionRecordId), recordKey: recordKey.SK },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
        },
        ...usageChange(db, record.userId, usageDay(record), record.durationSeconds),
      ],
      USER_WRITE_RETRY,
    );
    return performance.now() - started;
  };
  const countOf = (work: () => Promise<unknown>) => bench.countRequests(work);
  const [saveRequests, beforeRequests] = [await countOf(withFeed), await countOf(before)];
  const [saveP50, beforeP50] = await shuffledRounds([withFeed, before], iterations);
  return {
    save: { operation: 'insertRecord (with its feed entry)', p50Us: saveP50!, dynamoRequests: saveRequests },
    saveBefore: { operation: 'the save before issue 36', p50Us: beforeP50!, dynamoRequests: beforeRequests },
  };
}

/** The cursor at the head of the account's feed: walk it to the end, as a device that is up to date has. */
async function headCursor(bench: Bench, account: SeededAccount): Promise<string> {
  let cursor: string | undefined;
  for (;;) {
    const page = await bench.call<{ cursor: string; hasMore: boolean }>('GET /api/transcriptions/changes', { account, query: { limit: '100', ...(cursor ? { cursor } : {}) } });
    cursor = page.cursor;
    if (!page.hasMore) return cursor;
  }
}

async function measureUpToDate(bench: Bench, account: SeededAccount, records: number, iterations: number): Promise<UpToDateRow> {
  const cursor = await headCursor(bench, account);
  const once = await timedOperation(bench, 'GET /api/transcriptions/changes', { account, query: { cursor } });
  const dynamoRequests = await bench.countRequests(once);
  const [p50Us] = await shuffledRounds([once], iterations);
  return { records, p50Us: p50Us!, dynamoRequests };
}

export async function measureSync(bench: Bench, settings: { iterations: number; largeHistory: number }, log: (line: string) => void): Promise<SyncResult> {
  const account = await seedAccount(bench, 'sync', { transcriptions: FEED_PAGE, days: 5 });
  const feed = await timedOperation(bench, 'GET /api/transcriptions/changes', { account, query: { limit: String(FEED_PAGE) } });
  const list = await timedOperation(bench, 'GET /api/transcriptions', { account, query: { limit: String(FEED_PAGE) } });
  const requests = [await bench.countRequests(feed), await bench.countRequests(list)];
  const timers = [feed, list, await bareOf(bench, feed), await bareOf(bench, list)];
  log(`sync: a feed page and a list page of ${FEED_PAGE} records x ${settings.iterations}, shuffled rounds`);
  const [feedP50, listP50, feedBare, listBare] = await shuffledRounds(timers, settings.iterations);

  log(`sync: saves with and without the feed entry x ${settings.iterations}`);
  const saves = await measureSaves(bench, account, settings.iterations);

  log(`sync: an up-to-date device, ${FEED_PAGE} and ${settings.largeHistory} records`);
  const large = await seedAccount(bench, 'sync-large', { transcriptions: settings.largeHistory, days: 60, concurrency: 8 });
  const upToDate = [await measureUpToDate(bench, account, FEED_PAGE, settings.iterations), await measureUpToDate(bench, large, settings.largeHistory, settings.iterations)];

  return {
    feed: { operation: `GET /api/transcriptions/changes?limit=${FEED_PAGE}`, p50Us: feedP50!, bareP50Us: feedBare!, dynamoRequests: requests[0]! },
    list: { operation: `GET /api/transcriptions?limit=${FEED_PAGE}`, p50Us: listP50!, bareP50Us: listBare!, dynamoRequests: requests[1]! },
    feedRatio: ratio(feedP50!, listP50!),
    ...saves,
    saveRatio: ratio(saves.save.p50Us, saves.saveBefore.p50Us),
    upToDate,
    samples: settings.iterations,
  };
}
