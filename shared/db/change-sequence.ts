import { ServiceUnavailableError } from '../errors';
import { accountIsCurrent } from './account-guard';
import type { AccountRef } from './account-guard';
import type { Database } from './client';
import { keys } from './keys';
import { backOff } from './transactions';
import type { GuardedWrite, RetryPolicy } from './transactions';

/**
 * The account's record change sequence (docs/sync.md): `changeSeq` on the profile item, the number
 * of the account's last record change (absent before the first). Every write of a record carries
 * its change's number into its own transaction and raises the sequence to it, conditioned on the
 * sequence being below it. So a number is taken only by a change that commits, two changes never
 * share one, and the order of the numbers is the order of the commits: a change whose number is
 * not above the last committed one (it was stamped earlier and commits later) fails, and is made
 * again with a number above the new head. A reader that saw the changes up to number n therefore
 * never sees a later commit get a number at or below n.
 *
 * The numbers increase strictly but are not consecutive: a change proposes the wall clock in
 * microseconds (or the head + 1 when that is higher), so concurrent changes of one account, which
 * reach the table in about the order they were stamped, mostly all commit instead of all but one
 * failing on the same next number (consecutive numbers made 20 parallel saves of one account
 * retry for seconds on DynamoDB Local). The feed keeps one entry per record, so its numbers are
 * never consecutive anyway; nothing reads meaning into the gaps. The profile item is the one every
 * write of the account already checks (accountIsCurrent), so the sequence costs the transaction no
 * item of its own.
 */

/** Another change of the account committed with a number at or above this one's: `head` is that number. */
export class SequenceMoved extends Error {
  constructor(readonly head: number) {
    super('The change sequence moved');
  }
}

const SEQUENCE = 'changeSeq';

/**
 * The account check of a record write, raising the sequence to `changeSeq` in the same
 * transaction: the check's own condition (the token's account and session are current), and the
 * sequence below `changeSeq`. A failure tells which of the two failed from the item as it was.
 */
export function advanceSequence(db: Database, account: AccountRef, changeSeq: number): GuardedWrite {
  const check = accountIsCurrent(db, account);
  const { Key, ConditionExpression, ExpressionAttributeNames, ExpressionAttributeValues } = check.item.ConditionCheck!;
  return {
    item: {
      Update: {
        TableName: db.tableName,
        Key,
        UpdateExpression: 'SET #seq = :changeSeq',
        ConditionExpression: `(${ConditionExpression}) AND (attribute_not_exists(#seq) OR #seq < :changeSeq)`,
        ExpressionAttributeNames: { ...ExpressionAttributeNames, '#seq': SEQUENCE },
        ExpressionAttributeValues: { ...ExpressionAttributeValues, ':changeSeq': changeSeq },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    onConditionFailed: (old) => {
      const head = Number(old?.[SEQUENCE] ?? 0);
      // Another change took this number or a higher one: propose again above it (the retry says so if the account check fails too).
      if (old !== undefined && head >= changeSeq) return new SequenceMoved(head);
      return check.onConditionFailed!(old);
    },
  };
}

let lastProposal = 0;

/** The number a change proposes: above the head, and the wall clock in microseconds, unique in this process. */
export function proposeChangeNumber(head: number): number {
  lastProposal = Math.max(Date.now() * 1000, lastProposal + 1);
  return Math.max(head + 1, lastProposal);
}

/**
 * The retries of a write that lost its number to another change of the account: at once above the
 * new head, then with jittered backoff (on AWS the account's writes serialise on the profile item
 * either way, as USER_WRITE_RETRY says).
 */
export const SEQUENCE_RETRY: RetryPolicy = { maxAttempts: 18, baseDelayMs: 20, maxDelayMs: 600 };

/** The last change of each account in flight, by DynamoDB client (one per container or local server) and user id. */
const inFlight = new WeakMap<object, Map<number, Promise<unknown>>>();

/**
 * Runs the changes of one account that this process makes one after another. The account's
 * changes serialise on its profile item in any case (DynamoDB runs them one at a time, or cancels
 * all but one as conflicting); sent together, all but the first would lose their number and be
 * retried. A Lambda container serves one request at a time, so this only orders what one process
 * serves at once (per DynamoDB client): the local server's concurrent requests (DynamoDB Local queues transactions
 * instead of cancelling them, and a queue of retries outlasts the SDK's timeouts).
 */
async function oneAtATime<T>(db: Database, userId: number, change: () => Promise<T>): Promise<T> {
  let accounts = inFlight.get(db.client);
  if (!accounts) inFlight.set(db.client, (accounts = new Map()));
  const before = accounts.get(userId) ?? Promise.resolve();
  const run = before.then(change, change);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  accounts.set(userId, settled);
  try {
    return await run;
  } finally {
    if (accounts.get(userId) === settled) accounts.delete(userId);
  }
}

/**
 * Runs `write` with a change number above `head`, again above the new head each time another
 * change took it first; the account's changes in this process one after another.
 */
export function atNextSequence<T>(db: Database, account: AccountRef, head: number, write: (changeSeq: number) => Promise<T>): Promise<T> {
  return oneAtATime(db, account.userId, () => withNextNumber(head, write));
}

/**
 * The sequence raised to `changeSeq` for a change the service makes on its own (the feed's
 * backfill, shared/db/feed-backfill.ts), with no caller's token to check: only that the account
 * still exists (its profile), and the sequence below `changeSeq`. A missing profile fails as
 * `AccountGone`, a number taken as `SequenceMoved`.
 */
export function raiseSequence(db: Database, userId: number, changeSeq: number): GuardedWrite {
  return {
    item: {
      Update: {
        TableName: db.tableName,
        Key: keys.user(userId),
        UpdateExpression: 'SET #seq = :changeSeq',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(#seq) OR #seq < :changeSeq)',
        ExpressionAttributeNames: { '#seq': SEQUENCE },
        ExpressionAttributeValues: { ':changeSeq': changeSeq },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    onConditionFailed: (old) => (old === undefined ? new AccountGone() : new SequenceMoved(Number(old[SEQUENCE] ?? 0))),
  };
}

/** The account's profile is gone (deleted while the service worked on it). */
export class AccountGone extends Error {
  constructor() {
    super('The account no longer exists');
  }
}

/** atNextSequence for a change the service makes on its own (no caller): see raiseSequence. */
export function atNextSequenceOf<T>(db: Database, userId: number, head: number, write: (changeSeq: number) => Promise<T>): Promise<T> {
  return oneAtATime(db, userId, () => withNextNumber(head, write));
}

async function withNextNumber<T>(head: number, write: (changeSeq: number) => Promise<T>): Promise<T> {
  let current = head;
  for (let attempt = 0; ; attempt++) {
    try {
      // Proposed right before the transaction is sent, so that numbers follow the order of arrival.
      return await write(proposeChangeNumber(current));
    } catch (error) {
      if (!(error instanceof SequenceMoved)) throw error;
      if (attempt + 1 >= SEQUENCE_RETRY.maxAttempts) {
        throw new ServiceUnavailableError('The request conflicted with concurrent changes; try again.', { cause: error });
      }
      current = error.head;
      if (attempt > 0) await backOff(attempt, SEQUENCE_RETRY);
    }
  }
}
