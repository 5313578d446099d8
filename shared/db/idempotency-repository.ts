import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Database } from './client';
import { keys } from './keys';
import { TTL_ATTRIBUTE } from './table';
import type { GuardedWrite } from './transactions';

/** The first response to a request sent with an Idempotency-Key. Times are epoch seconds. */
export interface IdempotencyRecord {
  /** SHA-256 of the validated request, to tell a repeat from another request reusing the key. */
  requestHash: string;
  response: Record<string, unknown>;
  expiresAt: number;
}

/** Thrown when the key was claimed by a request that committed first; carries that request's record. */
export class IdempotentReplay extends Error {
  constructor(readonly record: IdempotencyRecord) {
    super('This Idempotency-Key was used before');
    this.name = 'IdempotentReplay';
  }
}

/**
 * The response is stored as a DynamoDB map, not as JSON text: a map holds a string in its UTF-8
 * size, while JSON escaping could grow a 100 000-character text past the 400 KB item limit. A map
 * does not keep the order of its fields, so the order is stored beside it.
 */
function toRecord(item: Record<string, unknown>): IdempotencyRecord {
  const stored = (item.response ?? {}) as Record<string, unknown>;
  const order = Array.isArray(item.responseFields) ? (item.responseFields as string[]) : Object.keys(stored);
  const response = Object.fromEntries(order.filter((field) => field in stored).map((field) => [field, stored[field]]));
  return { requestHash: String(item.requestHash), response, expiresAt: Number(item.expiresAt) };
}

/** The record for a key, if one exists and has not expired by the service clock (TTL deletion lags). */
export async function findLiveIdempotencyRecord(
  db: Database,
  userId: number,
  scope: string,
  idempotencyKey: string,
  now: number,
): Promise<IdempotencyRecord | undefined> {
  const result = await db.client.send(
    new GetCommand({ TableName: db.tableName, Key: keys.idempotency(userId, scope, idempotencyKey), ConsistentRead: true }),
  );
  const record = result.Item ? toRecord(result.Item) : undefined;
  return record && record.expiresAt > now ? record : undefined;
}

/**
 * The write that claims a key, part of the transaction that does the work: either both commit or
 * neither does, so a repeat can never find the work done without its response, or the other way
 * round. Of two concurrent requests with the same key, the second fails this condition and
 * replays the first one's response.
 */
export function claimIdempotencyKey(
  db: Database,
  userId: number,
  scope: string,
  idempotencyKey: string,
  record: IdempotencyRecord,
  now: number,
): GuardedWrite {
  return {
    item: {
      Put: {
        TableName: db.tableName,
        Item: {
          ...keys.idempotency(userId, scope, idempotencyKey),
          requestHash: record.requestHash,
          response: record.response,
          responseFields: Object.keys(record.response),
          expiresAt: record.expiresAt,
          [TTL_ATTRIBUTE]: record.expiresAt,
        },
        // An expired record may linger until TTL deletion gets to it; it no longer holds the key.
        ConditionExpression: 'attribute_not_exists(PK) OR expiresAt <= :now',
        ExpressionAttributeValues: { ':now': now },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    onConditionFailed: (old) => new IdempotentReplay(toRecord(old ?? {})),
  };
}
