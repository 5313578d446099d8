import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Database } from './client';
import { keys } from './keys';

/**
 * Integer ids, unique per kind across the service and never reused, without a hot counter item:
 * each container reserves a block of ids with one atomic ADD and hands them out from memory, so
 * the counter item takes one write per block rather than one per id. Ids are therefore unique but
 * not dense and not ordered by time across containers; listings order by creation time instead.
 */
export const ID_BLOCK_SIZE = 64;

interface Block {
  next: number;
  last: number;
}

const blocks = new Map<string, Block>();
const reservations = new Map<string, Promise<void>>();

async function reserveBlock(db: Database, kind: string, stateKey: string): Promise<void> {
  const result = await db.client.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: keys.idCounter(kind),
      UpdateExpression: 'ADD lastReserved :block',
      ExpressionAttributeValues: { ':block': ID_BLOCK_SIZE },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const last = Number(result.Attributes?.lastReserved);
  blocks.set(stateKey, { next: last - ID_BLOCK_SIZE + 1, last });
}

export async function allocateId(db: Database, kind: 'user' | 'transcription' | 'event'): Promise<number> {
  const stateKey = `${db.tableName}/${kind}`;
  for (;;) {
    const block = blocks.get(stateKey);
    if (block && block.next <= block.last) return block.next++;
    // Concurrent callers in one container share a single reservation instead of each taking a block.
    let reservation = reservations.get(stateKey);
    if (!reservation) {
      reservation = reserveBlock(db, kind, stateKey).finally(() => reservations.delete(stateKey));
      reservations.set(stateKey, reservation);
    }
    await reservation;
  }
}
