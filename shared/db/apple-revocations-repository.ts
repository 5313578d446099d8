import { DeleteCommand, UpdateCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import type { Database } from './client';
import { keys } from './keys';
import { PARTITION_KEY, TTL_ATTRIBUTE } from './table';
import { isConditionFailure } from './transactions';
import type { GuardedWrite } from './transactions';

/**
 * Apple refresh tokens still to be revoked at Apple (App Store Review Guideline 5.1.1(v), docs/
 * social-sign-in.md): written in the transaction that ends an account, outside its partition (the
 * purge never touches it), and deleted once Apple confirmed the revocation or the job gave up on
 * it after APPLE_REVOCATION_LIMIT_DAYS. The token stays sealed as it was stored at sign-in; only
 * the job (which holds the key) opens it. One partition, like the pending purges: it only ever
 * holds the few deletions of the last minutes, or of an Apple outage.
 */
export interface AppleRevocation {
  userId: number;
  subject: string;
  /** The client id the token was issued to: Apple wants it with the token. */
  clientId: string;
  /** Apple's refresh token, sealed (shared/identity/social/apple-client.ts sealAppleToken). */
  sealedToken: string;
  /** When the account was deleted (ISO 8601): the limit counts from here. */
  requestedAt: string;
  /** Calls to Apple that failed so far. */
  attempts: number;
}

/** Days after the deletion after which the job stops trying, counts AppleRevocationsAbandoned and deletes the item. */
export const APPLE_REVOCATION_LIMIT_DAYS = 7;
/**
 * The item expires by TTL this long after the limit, in case the job never ran to give up on it:
 * the sealed token is not kept for ever.
 */
const EXPIRY_AFTER_LIMIT_DAYS = 30;

const DAY_SECONDS = 86_400;

/** The write that records a revocation, for the transaction that ends the account. */
export function recordRevocationWrite(db: Database, revocation: Omit<AppleRevocation, 'attempts'>): GuardedWrite {
  const requested = Math.floor(Date.parse(revocation.requestedAt) / 1000);
  return {
    item: {
      Put: {
        TableName: db.tableName,
        Item: {
          ...keys.appleRevocation(revocation.userId, revocation.subject),
          ...revocation,
          attempts: 0,
          [TTL_ATTRIBUTE]: requested + (APPLE_REVOCATION_LIMIT_DAYS + EXPIRY_AFTER_LIMIT_DAYS) * DAY_SECONDS,
        },
      },
    },
  };
}

const toRevocation = (item: Record<string, unknown>): AppleRevocation => ({
  userId: Number(item.userId),
  subject: String(item.subject),
  clientId: String(item.clientId),
  sealedToken: String(item.sealedToken),
  requestedAt: String(item.requestedAt),
  attempts: Number(item.attempts ?? 0),
});

/** Every revocation still pending, oldest account first (for the job: its partition is small). */
export async function* pendingRevocations(db: Database): AsyncGenerator<AppleRevocation> {
  const pages = paginateQuery(
    { client: db.client },
    {
      TableName: db.tableName,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY },
      ExpressionAttributeValues: { ':pk': keys.appleRevocation(0, '').PK },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) for (const item of page.Items ?? []) yield toRevocation(item);
}

/** Apple confirmed (or the job gave up): the item and its sealed token go. */
export async function removeRevocation(db: Database, revocation: Pick<AppleRevocation, 'userId' | 'subject'>): Promise<void> {
  await db.client.send(new DeleteCommand({ TableName: db.tableName, Key: keys.appleRevocation(revocation.userId, revocation.subject) }));
}

/** A failed call to Apple: counted, with when and why (a status, never the token), for the operator. */
export async function noteFailedRevocation(db: Database, revocation: Pick<AppleRevocation, 'userId' | 'subject'>, at: string, outcome: string): Promise<void> {
  await db.client.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: keys.appleRevocation(revocation.userId, revocation.subject),
      UpdateExpression: 'ADD attempts :one SET lastAttemptAt = :at, lastOutcome = :outcome',
      // Only while it is pending: a run that overlapped this one may have finished it already.
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':one': 1, ':at': at, ':outcome': outcome },
    }),
  ).catch((error: unknown) => {
    if (!isConditionFailure(error)) throw error;
  });
}
