import { BatchWriteCommand, DeleteCommand, QueryCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { UnauthorizedError } from '../errors';
import type { Database } from './client';
import { keys, sortKeyPrefix } from './keys';
import type { ItemKey } from './keys';
import { PARTITION_KEY, SORT_KEY } from './table';
import { accountSubject } from './login-failures-repository';
import { backOff, isConditionFailure, writeAtomically } from './transactions';
import type { GuardedWrite } from './transactions';
import type { TokenSubject, UserRecord } from './users-repository';
import { tokenIsCurrentCondition } from './users-repository';

const BATCH_SIZE = 25;
const PARALLEL_BATCHES = 8;
const BATCH_ATTEMPTS = 8;
/**
 * Items deleted per step of a purge: BatchWriteItem calls of 25 in parallel. The time left is
 * checked before each step (and before each Query of the next keys), so a purge given a budget
 * ends within it plus one step.
 */
export const PURGE_STEP_ITEMS = BATCH_SIZE * PARALLEL_BATCHES;
/** Keys per Query page: several steps' worth, so reading the partition costs few requests. */
const QUERY_PAGE_ITEMS = PURGE_STEP_ITEMS * 10;

/**
 * Milliseconds a purge may still start a step in; zero or less: stop now, the purge marker stays
 * and the scheduled job goes on from there. Unbounded when not given.
 */
export type TimeLeft = () => number;
const unbounded: TimeLeft = () => Infinity;

/** What a purge did: `finished` once the partition, the markers and the purge marker are gone. */
export interface PurgeOutcome {
  finished: boolean;
  /** Items deleted from the partition by this call. */
  deletedItems: number;
}

/**
 * Items of the partition that hold a marker outside it, by sort-key prefix: the marker is
 * released (only while it still names this account) before the item goes, so an interrupted purge
 * never leaves a marker whose item it can no longer find. A new kind of item with a marker
 * outside the partition (a passkey's credential id, say) adds a line here.
 */
const MARKERS_OUTSIDE_PARTITION: readonly { prefix: string; marker: (sortKeySuffix: string) => ItemKey }[] = [
  // A device's serial owner: the serial is free for anyone once the account is gone.
  { prefix: sortKeyPrefix.device, marker: (sn) => keys.deviceOwner(sn) },
  // A passkey's owner item (credential -> account): sign-in already refuses it, the profile being gone.
  { prefix: sortKeyPrefix.passkey, marker: (passkeyId) => keys.passkeyOwner(passkeyId) },
  // A social identity's owner item (`<provider>#<subject>`): the identity may sign up anew once the account is gone.
  { prefix: sortKeyPrefix.social, marker: (identity) => keys.socialIdentityOwner(identity.slice(0, identity.indexOf('#')), identity.slice(identity.indexOf('#') + 1)) },
];

/**
 * Items outside the partition keyed by the account id alone, deleted once the partition is empty.
 * A new kind keyed by the id adds a line here.
 */
const ACCOUNT_ITEMS_OUTSIDE_PARTITION: readonly ((userId: number) => ItemKey)[] = [
  // The failed-password counter of the account.
  (userId) => keys.loginFailures(accountSubject(userId)),
];

/**
 * Ends an account in one transaction: the profile goes (so every token of the account fails at
 * once, in the authorizer and in every write's account check), its e-mail and phone markers go (so
 * both can sign up again at once), and a purge marker records that the account's data still has
 * to be removed, so a purge cut short (a timeout, a crash) can be finished later. `alongside`:
 * what else must be recorded with the deletion, outside the partition (an Apple token to revoke,
 * shared/db/apple-revocations-repository.ts): written with it or not at all.
 */
export async function endAccount(db: Database, user: UserRecord, token: TokenSubject, requestedAt: string, alongside: readonly GuardedWrite[] = []): Promise<void> {
  const identityMarkers: GuardedWrite[] = [];
  for (const [kind, value] of [['email', user.email], ['phone', user.phone]] as const) {
    if (!value) continue;
    identityMarkers.push({
      item: {
        Delete: {
          TableName: db.tableName,
          Key: keys.identity(kind, value),
          // Never free an identity that another account holds.
          ConditionExpression: 'attribute_not_exists(PK) OR userId = :me',
          ExpressionAttributeValues: { ':me': user.userId },
        },
      },
    });
  }
  await writeAtomically(db, [
    {
      item: {
        Delete: {
          TableName: db.tableName,
          Key: keys.user(user.userId),
          // The token that asked must still be current: a reset, a deletion or the end of its
          // session since then wins. The profile's session markers go with it: every session ends.
          ...tokenIsCurrentCondition(token),
        },
      },
      onConditionFailed: () => new UnauthorizedError('Unauthorized'),
    },
    ...identityMarkers,
    {
      item: {
        Put: { TableName: db.tableName, Item: { ...keys.pendingPurge(user.userId), userId: user.userId, requestedAt } },
      },
    },
    ...alongside,
  ]);
}

async function batchDelete(db: Database, batch: ItemKey[]): Promise<void> {
  let pending = batch.map((key) => ({ DeleteRequest: { Key: key } }));
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt >= BATCH_ATTEMPTS) throw new Error('DynamoDB left deletes unprocessed; the purge stays pending');
    if (attempt > 0) await backOff(attempt);
    const result = await db.client.send(new BatchWriteCommand({ RequestItems: { [db.tableName]: pending } }));
    pending = (result.UnprocessedItems?.[db.tableName] ?? []) as typeof pending;
  }
}

/** Deletes an item outside the partition, but only while it still names this account. */
async function releaseMarker(db: Database, userId: number, key: ItemKey): Promise<void> {
  try {
    await db.client.send(
      new DeleteCommand({
        TableName: db.tableName,
        Key: key,
        // Someone else may hold it by now (a serial bound again after an interrupted purge).
        ConditionExpression: 'userId = :me',
        ExpressionAttributeValues: { ':me': userId },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * The first keys of the partition: deleted ones are gone, so each page starts from the top.
 * `last`: nothing follows them (nothing can be added meanwhile: the profile is gone).
 */
async function firstKeys(db: Database, userId: number): Promise<{ itemKeys: ItemKey[]; last: boolean }> {
  const page = await db.client.send(
    new QueryCommand({
      TableName: db.tableName,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
      ExpressionAttributeValues: { ':pk': keys.userPartition(userId) },
      ProjectionExpression: '#pk, #sk',
      ConsistentRead: true,
      Limit: QUERY_PAGE_ITEMS,
    }),
  );
  return { itemKeys: (page.Items ?? []) as ItemKey[], last: !page.LastEvaluatedKey };
}

/** One step: the markers outside the partition of these items, then the items, in parallel batches. */
async function deleteStep(db: Database, userId: number, itemKeys: ItemKey[]): Promise<void> {
  const markers = itemKeys.flatMap((key) =>
    MARKERS_OUTSIDE_PARTITION.filter((kind) => key.SK.startsWith(kind.prefix)).map((kind) => kind.marker(key.SK.slice(kind.prefix.length))),
  );
  await Promise.all(markers.map((marker) => releaseMarker(db, userId, marker)));
  const batches: ItemKey[][] = [];
  for (let index = 0; index < itemKeys.length; index += BATCH_SIZE) batches.push(itemKeys.slice(index, index + BATCH_SIZE));
  await Promise.all(batches.map((batch) => batchDelete(db, batch)));
}

/**
 * Removes everything in the account's partition (devices, records, usage, events, statistics,
 * sessions, idempotency records, passkeys) and the items outside it that belong to the account (the lists
 * above), then the purge marker, in steps of PURGE_STEP_ITEMS for as long as `timeLeft` allows.
 * Idempotent, and safe to run again (or at the same time) after any interruption: a later call
 * simply goes on. Nothing can be added to the partition meanwhile: every write checks the
 * profile, which is gone; and an account signing up again with the same e-mail or phone gets a
 * new id (shared/db/id-allocator.ts never reuses one), so a new partition this never touches.
 */
export async function purgeAccountData(db: Database, userId: number, timeLeft: TimeLeft = unbounded): Promise<PurgeOutcome> {
  let deletedItems = 0;
  for (;;) {
    if (timeLeft() <= 0) return { finished: false, deletedItems };
    const { itemKeys, last } = await firstKeys(db, userId);
    for (let index = 0; index < itemKeys.length; index += PURGE_STEP_ITEMS) {
      if (index > 0 && timeLeft() <= 0) return { finished: false, deletedItems };
      const step = itemKeys.slice(index, index + PURGE_STEP_ITEMS);
      await deleteStep(db, userId, step);
      deletedItems += step.length;
    }
    if (last) break;
  }
  await Promise.all(ACCOUNT_ITEMS_OUTSIDE_PARTITION.map((item) => db.client.send(new DeleteCommand({ TableName: db.tableName, Key: item(userId) }))));
  await db.client.send(new DeleteCommand({ TableName: db.tableName, Key: keys.pendingPurge(userId) }));
  return { finished: true, deletedItems };
}

/** What a run of the job did: the accounts it finished, and whether it stopped with purges pending. */
export interface ResumeOutcome {
  purged: number[];
  deletedItems: number;
  /** True when the time ran out first: the next run goes on where this one stopped. */
  cutShort: boolean;
}

/**
 * Finishes purges that were cut short (by a deletion request's budget, a timeout, a crash); for
 * the scheduled job. The marker partition only ever holds accounts being deleted right now or
 * cut short. Each run goes on from where the last one stopped (the deleted items are gone), so a
 * partition larger than one run can delete is finished over several runs.
 */
export async function resumePendingPurges(db: Database, timeLeft: TimeLeft = unbounded): Promise<ResumeOutcome> {
  const outcome: ResumeOutcome = { purged: [], deletedItems: 0, cutShort: false };
  const pages = paginateQuery(
    { client: db.client },
    {
      TableName: db.tableName,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY },
      ExpressionAttributeValues: { ':pk': keys.pendingPurge(0).PK },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const userId = Number(item.userId);
      const { finished, deletedItems } = await purgeAccountData(db, userId, timeLeft);
      outcome.deletedItems += deletedItems;
      if (!finished) return { ...outcome, cutShort: true };
      outcome.purged.push(userId);
    }
  }
  return outcome;
}
