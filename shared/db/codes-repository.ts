import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CodeAttemptsExceededError, CodeCooldownError, CodeDailyLimitError, CodeInvalidError } from '../errors';
import type { Database } from './client';
import { keys } from './keys';
import { TTL_ATTRIBUTE } from './table';
import { isConditionFailure, writeAtomically } from './transactions';
import type { GuardedWrite } from './transactions';

/** The code most recently sent to a target. Times are epoch seconds. */
export interface StoredCode {
  /** Identifies one send, so that a write meant for it never touches a newer code. */
  codeId: string;
  codeHash: string;
  sentAt: number;
  expiresAt: number;
  attempts: number;
  usedAt?: number;
}

export interface CodeLimits {
  resendSeconds: number;
  dailyLimit: number;
  maxAttempts: number;
}

const DAY_SECONDS = 86_400;

export async function findCurrentCode(db: Database, target: string): Promise<StoredCode | undefined> {
  const result = await db.client.send(
    new GetCommand({ TableName: db.tableName, Key: keys.currentCode(target), ConsistentRead: true }),
  );
  return result.Item as StoredCode | undefined;
}

/**
 * Stores a new code for a target, replacing the previous one, and counts it against the target's
 * daily cap, both in one transaction: a send refused by either rule leaves nothing behind.
 */
export async function storeNewCode(
  db: Database,
  target: string,
  code: Omit<StoredCode, 'attempts' | 'usedAt'>,
  utcDate: string,
  limits: CodeLimits,
): Promise<void> {
  const secondsToMidnight = DAY_SECONDS - (code.sentAt % DAY_SECONDS);
  await writeAtomically(db, [
    {
      item: {
        Put: {
          TableName: db.tableName,
          Item: { ...keys.currentCode(target), ...code, attempts: 0, [TTL_ATTRIBUTE]: code.expiresAt + DAY_SECONDS },
          // The resend interval is decided by the stored send time, not by whether the item still
          // exists: TTL deletion is lazy and an expired item may linger for days.
          ConditionExpression: 'attribute_not_exists(PK) OR sentAt <= :resendFloor',
          ExpressionAttributeValues: { ':resendFloor': code.sentAt - limits.resendSeconds },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      onConditionFailed: (previous) => {
        const previousSentAt = Number(previous?.sentAt ?? code.sentAt);
        const wait = Math.max(1, previousSentAt + limits.resendSeconds - code.sentAt);
        return new CodeCooldownError(`A code was sent recently. Retry after ${limits.resendSeconds} seconds.`, wait);
      },
    },
    {
      item: {
        Update: {
          TableName: db.tableName,
          Key: keys.codeDay(target, utcDate),
          UpdateExpression: 'ADD sends :one SET #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(sends) OR sends < :limit',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':one': 1, ':limit': limits.dailyLimit, ':ttl': code.sentAt + 2 * DAY_SECONDS },
        },
      },
      onConditionFailed: () =>
        new CodeDailyLimitError('Too many codes were requested for this target today.', secondsToMidnight),
    },
  ]);
}

/**
 * Undoes a send whose delivery failed: the code goes, and so does its cooldown and its place in
 * the daily count, so the caller can try again at once.
 */
export async function discardUndeliveredCode(db: Database, target: string, codeId: string, utcDate: string): Promise<void> {
  await writeAtomically(db, [
    {
      item: {
        Delete: {
          TableName: db.tableName,
          Key: keys.currentCode(target),
          // Only the code of this send: never one stored by a later send.
          ConditionExpression: 'codeId = :codeId',
          ExpressionAttributeValues: { ':codeId': codeId },
        },
      },
    },
    {
      item: {
        Update: {
          TableName: db.tableName,
          Key: keys.codeDay(target, utcDate),
          UpdateExpression: 'ADD sends :minusOne',
          ConditionExpression: 'sends > :zero',
          ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
        },
      },
    },
  ]);
}

/**
 * Counts one wrong guess and returns how many there have been. Conditioned on the count being
 * below the maximum, so that any number of parallel guesses counts at most `maxAttempts`. With
 * `spent`, it counts guesses at a code already used (see checkCodeOrSpent): those are limited too.
 */
export async function countWrongGuess(db: Database, target: string, codeId: string, maxAttempts: number, spent = false): Promise<number> {
  try {
    const result = await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.currentCode(target),
        UpdateExpression: 'ADD attempts :one',
        ConditionExpression: `codeId = :codeId AND attempts < :max AND ${spent ? 'attribute_exists(usedAt)' : 'attribute_not_exists(usedAt)'}`,
        ExpressionAttributeValues: { ':one': 1, ':codeId': codeId, ':max': maxAttempts },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(result.Attributes?.attempts);
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // The code was voided, used or replaced meanwhile: the guess is spent either way.
    return maxAttempts;
  }
}

/**
 * The write that spends a code, to be part of the transaction that acts on it (sign-in, sign-up,
 * password reset). Its condition re-checks everything the caller checked on its read, so of many
 * parallel requests with the right code exactly one succeeds.
 */
export function consumeCode(
  db: Database,
  target: string,
  code: Pick<StoredCode, 'codeId'>,
  now: number,
  maxAttempts: number,
): GuardedWrite {
  return {
    item: {
      Update: {
        TableName: db.tableName,
        Key: keys.currentCode(target),
        UpdateExpression: 'SET usedAt = :now',
        ConditionExpression: 'codeId = :codeId AND attribute_not_exists(usedAt) AND attempts < :max AND expiresAt > :now',
        ExpressionAttributeValues: { ':now': now, ':codeId': code.codeId, ':max': maxAttempts },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    onConditionFailed: (current) =>
      Number(current?.attempts ?? 0) >= maxAttempts
        ? new CodeAttemptsExceededError('Too many wrong codes; request a new code.')
        : new CodeInvalidError('The verification code is invalid or has expired.'),
  };
}
