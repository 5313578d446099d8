import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ServiceUnavailableError } from '../errors';
import type { Database } from './client';
import { keys } from './keys';

/**
 * Proves the table can be read: one strongly consistent GetItem of a key nothing ever writes
 * (1 read capacity unit, no item data). Consistent, so it reaches the partition's leader, as
 * every guarded write does. Any failure, not only the ones the client maps to "busy" (a missing
 * table, denied access, no credentials), means the service cannot serve: it is a 503 here.
 */
export async function probeTable(db: Database): Promise<void> {
  try {
    await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.healthProbe(), ConsistentRead: true, ProjectionExpression: 'PK' }));
  } catch (error) {
    throw new ServiceUnavailableError('The service cannot read its data. Try again shortly.', { cause: error });
  }
}
