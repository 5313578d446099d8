import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Database } from './client';
import { keys } from './keys';
import { isConditionFailure } from './transactions';

/**
 * Failed password logins of one subject: an account (`user#<id>`) or, for an e-mail or phone with
 * no account, that target, so that unknown accounts lock exactly like real ones and the lock
 * cannot be used to learn which accounts exist. Times are epoch seconds.
 *
 * The failures are counted over a sliding window: the times of the latest failures are kept, and
 * any `maxFailures` of them within `windowSeconds` lock the subject. (A fixed window that restarts
 * after `windowSeconds` would let 4 failures just before its end and 4 just after go unlocked:
 * 8 failures in a few minutes, where the contract allows 5 in 15 minutes.)
 */
export interface LoginFailures {
  /** Times of the latest failures in the order they were recorded; only the newest few are kept. */
  failedAt?: number[];
  lockedUntil?: number;
}

export interface LockPolicy {
  maxFailures: number;
  windowSeconds: number;
  lockSeconds: number;
}

export async function findLoginFailures(db: Database, subject: string): Promise<LoginFailures | undefined> {
  const result = await db.client.send(
    new GetCommand({ TableName: db.tableName, Key: keys.loginFailures(subject), ConsistentRead: true }),
  );
  return result.Item as LoginFailures | undefined;
}

/**
 * Drops all but the newest `keep` failure times: once `keep` newer failures exist, an older one can
 * never decide a lock again. Conditioned on the list still having the length that was read: times
 * are only appended at the end and removed from the front, so at that length the first entries are
 * the oldest whatever happened in between. If the length changed, a later failure trims instead.
 */
async function trimFailures(db: Database, subject: string, length: number, keep: number): Promise<void> {
  if (length <= keep) return;
  const oldest = Array.from({ length: length - keep }, (_, index) => `failedAt[${index}]`);
  try {
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.loginFailures(subject),
        UpdateExpression: `REMOVE ${oldest.join(', ')}`,
        ConditionExpression: 'size(failedAt) = :length',
        ExpressionAttributeValues: { ':length': length },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** Records one failed login; returns the lock end when this failure locked the subject. */
export async function recordLoginFailure(db: Database, subject: string, now: number, policy: LockPolicy): Promise<number | undefined> {
  // An atomic append: parallel failures are all recorded, none overwrites another.
  const result = await db.client.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: keys.loginFailures(subject),
      UpdateExpression: 'SET failedAt = list_append(if_not_exists(failedAt, :none), :now), #ttl = :ttl',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':none': [], ':now': [now], ':ttl': now + policy.windowSeconds + policy.lockSeconds },
      ReturnValues: 'ALL_NEW',
    }),
  );
  const failedAt = (result.Attributes?.failedAt ?? []) as number[];
  await trimFailures(db, subject, failedAt.length, policy.maxFailures);
  const recent = failedAt.filter((at) => at > now - policy.windowSeconds).length;
  if (recent < policy.maxFailures) return undefined;
  const lockedUntil = now + policy.lockSeconds;
  try {
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.loginFailures(subject),
        UpdateExpression: 'SET lockedUntil = :until, #ttl = :ttl',
        // A lock already running is not extended by the failures that race with it.
        ConditionExpression: 'attribute_not_exists(lockedUntil) OR lockedUntil <= :now',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':until': lockedUntil, ':now': now, ':ttl': lockedUntil + policy.windowSeconds },
      }),
    );
    return lockedUntil;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

export async function clearLoginFailures(db: Database, subject: string): Promise<void> {
  await db.client.send(new DeleteCommand({ TableName: db.tableName, Key: keys.loginFailures(subject) }));
}
