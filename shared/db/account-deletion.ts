import { BatchWriteCommand, DeleteCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { UnauthorizedError } from '../errors';
import type { Database } from './client';
import { keys, sortKeyPrefix } from './keys';
import type { ItemKey } from './keys';
import { PARTITION_KEY, SORT_KEY } from './table';
import { accountSubject, clearLoginFailures } from './login-failures-repository';
import { backOff, isConditionFailure, writeAtomically } from './transactions';
import type { GuardedWrite } from './transactions';
import type { TokenSubject, UserRecord } from './users-repository';
import { tokenIsCurrentCondition } from './users-repository';

const BATCH_SIZE = 25;
const PARALLEL_BATCHES = 4;
const BATCH_ATTEMPTS = 8;

/**
 * Ends an account in one transaction: the profile goes (so every token of the account fails at
 * once, in the authorizer and in every write's account check), its e-mail and phone markers go (so
 * both can sign up again at once), and a purge marker records that the account's data still has
 * to be removed, so a purge cut short (a timeout, a crash) can be finished later.
 */
export async function endAccount(db: Database, user: UserRecord, token: TokenSubject, requestedAt: string): Promise<void> {
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

/** Frees a serial, but only while it still names this account. */
async function releaseSerial(db: Database, userId: number, sn: string): Promise<void> {
  try {
    await db.client.send(
      new DeleteCommand({
        TableName: db.tableName,
        Key: keys.deviceOwner(sn),
        ConditionExpression: 'userId = :me',
        ExpressionAttributeValues: { ':me': userId },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * Removes everything in the account's partition (devices, records, usage, events, statistics,
 * idempotency records) and the markers outside it (serial owners, the login-failure counter),
 * then the purge marker. Idempotent and safe to run again after any interruption: a device's
 * serial marker is released before the device item is deleted, so an interrupted run never leaves
 * a serial bound to an account whose devices it can no longer find. Nothing can be added to the
 * partition meanwhile: every write checks the profile, which is gone.
 */
export async function purgeAccountData(db: Database, userId: number): Promise<void> {
  const pages = paginateQuery(
    { client: db.client },
    {
      TableName: db.tableName,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
      ExpressionAttributeValues: { ':pk': keys.userPartition(userId) },
      ProjectionExpression: '#pk, #sk',
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    const itemKeys = (page.Items ?? []) as ItemKey[];
    const serials = itemKeys.filter((key) => key.SK.startsWith(sortKeyPrefix.device)).map((key) => key.SK.slice(sortKeyPrefix.device.length));
    await Promise.all(serials.map((sn) => releaseSerial(db, userId, sn)));
    const batches: ItemKey[][] = [];
    for (let index = 0; index < itemKeys.length; index += BATCH_SIZE) batches.push(itemKeys.slice(index, index + BATCH_SIZE));
    for (let index = 0; index < batches.length; index += PARALLEL_BATCHES) {
      await Promise.all(batches.slice(index, index + PARALLEL_BATCHES).map((batch) => batchDelete(db, batch)));
    }
  }
  await clearLoginFailures(db, accountSubject(userId));
  await db.client.send(new DeleteCommand({ TableName: db.tableName, Key: keys.pendingPurge(userId) }));
}

/**
 * Finishes purges that were cut short; for a scheduled job. Returns the accounts purged. The
 * marker partition only ever holds accounts being deleted right now or interrupted ones.
 */
export async function resumePendingPurges(db: Database): Promise<number[]> {
  const purged: number[] = [];
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
      await purgeAccountData(db, Number(item.userId));
      purged.push(Number(item.userId));
    }
  }
  return purged;
}
