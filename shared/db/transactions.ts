import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { ServiceUnavailableError } from '../errors';
import type { Database } from './client';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * One write of a transaction and what its failed condition means to the caller. `onConditionFailed`
 * receives the item as it was (when the write asked for it with ReturnValuesOnConditionCheckFailure).
 */
export interface GuardedWrite {
  item: TransactItem;
  onConditionFailed?: (oldItem: Record<string, unknown> | undefined) => Error;
}

/**
 * Called by an operation with its response: the writes to add to its transaction so that a repeat
 * of the request (same Idempotency-Key) replays that response (shared/http/idempotency.ts).
 */
export type Remember<T> = (response: T) => GuardedWrite[];

interface CancellationReason {
  Code?: string;
  Item?: Record<string, AttributeValue>;
}

/** How often and how patiently a transaction that conflicted with a concurrent one is retried. */
export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 15, maxDelayMs: 400 };

/** Full-jitter exponential backoff, as the AWS architecture blog recommends for contended writes. */
const backoffDelay = (attempt: number, policy: RetryPolicy = DEFAULT_RETRY): number =>
  Math.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);

/** Waits the backoff delay of `attempt` before a write is tried again. */
export const backOff = (attempt: number, policy: RetryPolicy = DEFAULT_RETRY): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, backoffDelay(attempt, policy)));

const cancellationReasons = (error: unknown): CancellationReason[] | undefined =>
  error instanceof Error && error.name === 'TransactionCanceledException'
    ? ((error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [])
    : undefined;

export const isConditionFailure = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/**
 * Writes all or nothing. A failed condition becomes the domain error its write names; a conflict
 * with a concurrent transaction on the same items is retried with jittered backoff, because the
 * retry will either succeed or meet the condition the other writer has now made true.
 */
export async function writeAtomically(db: Database, writes: GuardedWrite[], retry: RetryPolicy = DEFAULT_RETRY): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await db.client.send(new TransactWriteCommand({ TransactItems: writes.map((write) => write.item) }));
      return;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (!reasons) throw error;
      const failedIndex = reasons.findIndex((reason) => reason.Code === 'ConditionalCheckFailed');
      const failed = writes[failedIndex];
      if (failed) {
        const oldItem = reasons[failedIndex]?.Item ? unmarshall(reasons[failedIndex].Item) : undefined;
        if (failed.onConditionFailed) throw failed.onConditionFailed(oldItem);
        throw error;
      }
      const conflicted = reasons.some((reason) => reason.Code === 'TransactionConflict');
      if (!conflicted) throw error;
      if (attempt + 1 >= retry.maxAttempts) {
        throw new ServiceUnavailableError('The request conflicted with concurrent requests; try again.', {
          cause: error,
        });
      }
      await backOff(attempt, retry);
    }
  }
}
