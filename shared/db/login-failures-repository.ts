import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Database } from './client';
import { keys } from './keys';
import { isConditionFailure } from './transactions';

/**
 * Failed password logins of one subject: an account (`user#<id>`) or, for an e-mail or phone with
 * no account, that target, so that unknown accounts lock exactly like real ones and the lock
 * cannot be used to learn which accounts exist. Times are epoch seconds.
 */
export interface LoginFailures {
  failures: number;
  windowStart: number;
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

async function countInOpenWindow(db: Database, subject: string, now: number, policy: LockPolicy): Promise<number | undefined> {
  try {
    const result = await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.loginFailures(subject),
        UpdateExpression: 'ADD failures :one',
        // Only a failure inside the current window adds to its count.
        ConditionExpression: 'windowStart > :windowFloor',
        ExpressionAttributeValues: { ':one': 1, ':windowFloor': now - policy.windowSeconds },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Number(result.Attributes?.failures);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

async function openWindow(db: Database, subject: string, now: number, policy: LockPolicy): Promise<boolean> {
  try {
    await db.client.send(
      new PutCommand({
        TableName: db.tableName,
        Item: { ...keys.loginFailures(subject), failures: 1, windowStart: now, ttl: now + policy.windowSeconds + policy.lockSeconds },
        // Replace only a missing or finished window; a concurrent failure may have opened one.
        ConditionExpression: 'attribute_not_exists(PK) OR windowStart <= :windowFloor',
        ExpressionAttributeValues: { ':windowFloor': now - policy.windowSeconds },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Records one failed login; returns the lock end when this failure locked the subject. */
export async function recordLoginFailure(db: Database, subject: string, now: number, policy: LockPolicy): Promise<number | undefined> {
  let failures: number | undefined;
  for (let attempt = 0; attempt < 3 && failures === undefined; attempt++) {
    failures = await countInOpenWindow(db, subject, now, policy);
    if (failures === undefined && (await openWindow(db, subject, now, policy))) failures = 1;
  }
  if (failures === undefined || failures < policy.maxFailures) return undefined;
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
