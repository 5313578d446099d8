import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { backOff, isConditionFailure } from './transactions';
import type { Database } from './client';
import { keys } from './keys';
import { TTL_ATTRIBUTE } from './table';

/**
 * Password attempts of one subject: an account (`user#<id>`) or, for an e-mail or phone with no
 * account, that target, so that unknown accounts lock exactly like real ones and the lock cannot
 * be used to learn which accounts exist. Times are epoch seconds.
 *
 * Every password check first reserves an attempt here, before scrypt runs, so a burst of parallel
 * guesses gets no more checks than a sequence would. The item keeps the times of the latest
 * `maxFailures` attempts in slots `s0..s4`, written round-robin (`n` counts attempts): the slot
 * the next attempt would overwrite holds the oldest of them, and while that one is inside the
 * window, `maxFailures` attempts fall within it and no more may start (a sliding window: no burst
 * across a fixed window's edge gets through). A successful login deletes the item.
 */
/** The subjects whose attempts are counted: an account, or a target without one. */
export const accountSubject = (userId: number): string => `user#${userId}`;
export const targetSubject = (kind: string, value: string): string => `${kind}#${value}`;

export interface LockPolicy {
  maxFailures: number;
  windowSeconds: number;
  lockSeconds: number;
}

interface AttemptsItem {
  n?: number;
  lockedUntil?: number;
  [slot: `s${number}`]: number | undefined;
}

export type AttemptReservation =
  | { reserved: true; attemptsInWindow: number }
  | { reserved: false; retryAfterSeconds: number };

const MAX_ROUNDS = 12;

async function readAttempts(db: Database, subject: string): Promise<AttemptsItem> {
  const result = await db.client.send(
    new GetCommand({ TableName: db.tableName, Key: keys.loginFailures(subject), ConsistentRead: true }),
  );
  return (result.Item ?? {}) as AttemptsItem;
}

/** Claims one password check for the subject, or says how long it stays locked. */
export async function reserveLoginAttempt(db: Database, subject: string, now: number, policy: LockPolicy): Promise<AttemptReservation> {
  const windowFloor = now - policy.windowSeconds;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const item = await readAttempts(db, subject);
    if (item.lockedUntil !== undefined && item.lockedUntil > now) {
      return { reserved: false, retryAfterSeconds: item.lockedUntil - now };
    }
    const n = item.n ?? 0;
    const slot = `s${n % policy.maxFailures}` as const;
    const oldest = item[slot];
    if (oldest !== undefined && oldest > windowFloor) {
      // maxFailures attempts already fall inside the window (some may still be running).
      return { reserved: false, retryAfterSeconds: Math.max(1, oldest - windowFloor) };
    }
    const previous = Array.from({ length: policy.maxFailures }, (_, index) => item[`s${index}`]).filter(
      (at): at is number => at !== undefined && at > windowFloor,
    );
    try {
      await db.client.send(
        new UpdateCommand({
          TableName: db.tableName,
          Key: keys.loginFailures(subject),
          UpdateExpression: 'SET #slot = :now, n = :next, #ttl = :ttl',
          // Only on top of exactly what was read: a concurrent attempt or lock makes this round
          // start again from a fresh read, so no two attempts claim the same slot.
          ConditionExpression: n === 0 ? 'attribute_not_exists(n)' : 'n = :n',
          ExpressionAttributeNames: { '#slot': slot, '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: {
            ':now': now,
            ':next': n + 1,
            ':ttl': now + policy.windowSeconds + policy.lockSeconds,
            ...(n === 0 ? {} : { ':n': n }),
          },
        }),
      );
      return { reserved: true, attemptsInWindow: previous.length + 1 };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      await backOff(round);
    }
  }
  // Heavy contention on one account is itself a sign of an attack: fail closed, briefly.
  return { reserved: false, retryAfterSeconds: 1 };
}

/** Locks password login after the attempt that filled the window failed. */
export async function lockLogin(db: Database, subject: string, now: number, policy: LockPolicy): Promise<void> {
  const lockedUntil = now + policy.lockSeconds;
  try {
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.loginFailures(subject),
        UpdateExpression: 'SET lockedUntil = :until, #ttl = :ttl',
        // A lock already running is not extended by the failures that race with it.
        ConditionExpression: 'attribute_not_exists(lockedUntil) OR lockedUntil <= :now',
        ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ':until': lockedUntil, ':now': now, ':ttl': lockedUntil + policy.windowSeconds },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

export async function clearLoginFailures(db: Database, subject: string): Promise<void> {
  await db.client.send(new DeleteCommand({ TableName: db.tableName, Key: keys.loginFailures(subject) }));
}

/** What support sees of a subject's password attempts: how many failed within the window, and any lock running. */
export async function readLoginStanding(db: Database, subject: string, now: number, policy: LockPolicy): Promise<{ failedAttempts: number; lockedUntil: number | undefined }> {
  const item = await readAttempts(db, subject);
  const failedAttempts = Array.from({ length: policy.maxFailures }, (_, index) => item[`s${index}`]).filter(
    (at) => at !== undefined && at > now - policy.windowSeconds,
  ).length;
  return { failedAttempts, lockedUntil: item.lockedUntil !== undefined && item.lockedUntil > now ? item.lockedUntil : undefined };
}
