import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Database } from './client';
import { keys } from './keys';
import { TTL_ATTRIBUTE } from './table';
import { isConditionFailure } from './transactions';

/**
 * The deployment-wide SMS budget per hour (the SMS circuit breaker): an atomic counter, sharded so
 * that no single item takes every send's write. The hour's limit is split over the shards (their
 * caps add up to it exactly); a send takes one unit from a shard picked at random, and moves on
 * to the next shard when that one is full, so the limit holds exactly while shards have room and
 * a send is refused only when every shard is full.
 */
export const SMS_BUDGET_SHARDS = 10;

/** The cap of each shard: `limit` split as evenly as whole numbers allow. */
export function shardCaps(limit: number): number[] {
  const shards = Math.min(SMS_BUDGET_SHARDS, limit);
  return Array.from({ length: shards }, (_, shard) => Math.floor(limit / shards) + (shard < limit % shards ? 1 : 0));
}

/** `2026-01-29T10`: the UTC hour a time falls in. */
export const utcHour = (now: Date): string => now.toISOString().slice(0, 13);

/**
 * The hours this container found spent, per table and limit. A shard's count only rises within
 * its hour, so once every shard has refused, every later send of that hour would make the same
 * failing (and billed) conditional writes, one per shard; it is refused at once instead.
 */
const spentHours = new Set<string>();

/**
 * Takes one SMS from this hour's budget; false when the budget is spent. Each shard item expires
 * (TTL) a day after its hour.
 */
export async function takeSmsFromBudget(db: Database, now: Date, limit: number, random: () => number = Math.random): Promise<boolean> {
  const caps = shardCaps(limit);
  const hour = utcHour(now);
  const spent = `${db.tableName}#${hour}#${limit}`;
  if (spentHours.has(spent)) return false;
  const expiresAt = Math.floor(now.getTime() / 1000) + 25 * 3600;
  const first = Math.floor(random() * caps.length);
  for (let step = 0; step < caps.length; step++) {
    const shard = (first + step) % caps.length;
    try {
      await db.client.send(
        new UpdateCommand({
          TableName: db.tableName,
          Key: keys.smsHourShard(hour, shard),
          UpdateExpression: 'ADD sent :one SET #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(sent) OR sent < :cap',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':one': 1, ':cap': caps[shard], ':ttl': expiresAt },
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  for (const earlier of spentHours) if (!earlier.includes(`#${hour}#`)) spentHours.delete(earlier);
  spentHours.add(spent);
  return false;
}
