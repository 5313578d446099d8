import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Database } from '../../shared/db/client';
import { keys } from '../../shared/db/keys';

const BATCH = 25;

/**
 * Writes `count` behavior events straight into an account's partition with BatchWriteItem, many
 * batches at once: a history of years in seconds, where the API would take one request per event.
 * Shaped as the events repository writes them, so a purge meets what it meets in production.
 */
export async function seedEvents(db: Database, userId: number, count: number, { parallel = 16, from = Date.UTC(2022, 0, 1) } = {}): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const start = next;
      next = Math.min(count, next + BATCH);
      let pending = Array.from({ length: next - start }, (_, offset) => {
        const index = start + offset;
        const createdAt = new Date(from + index * 60_000).toISOString();
        return {
          PutRequest: {
            Item: { ...keys.event(userId, 'ambient_sound', createdAt, index + 1), userId, eventType: 'ambient_sound', eventValue: index % 2 ? 'enabled' : 'disabled', createdAt },
          },
        };
      });
      while (pending.length > 0) {
        const result = await db.client.send(new BatchWriteCommand({ RequestItems: { [db.tableName]: pending } }));
        pending = (result.UnprocessedItems?.[db.tableName] ?? []) as typeof pending;
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}
