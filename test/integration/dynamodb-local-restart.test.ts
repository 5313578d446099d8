import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureTable } from '../../infra/local/create-table';
import { superviseDynamoDbLocal } from '../../infra/local/dynamodb-local';
import type { SupervisedDynamoDbLocal } from '../../infra/local/dynamodb-local';
import { LOCAL_DYNAMODB_CREDENTIALS } from '../../shared/db/table';

/** `npm start`'s DynamoDB Local: a crash is followed by a restart on the same endpoint, or by the end. */
const TABLE = 'restart-check';
let dynamo: SupervisedDynamoDbLocal | undefined;
let dataDir: string | undefined;
afterEach(async () => {
  await dynamo?.stop();
  dynamo = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

describe('supervised DynamoDB Local', () => {
  it('is restarted on the same endpoint after it dies, with the data under DATA_DIR', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ddb-restart-'));
    const restarted = deferred<number>();
    const gaveUp = deferred<string>();
    dynamo = await superviseDynamoDbLocal(
      { dataDir, afterStart: (endpoint) => ensureTable(endpoint, TABLE) },
      { restarted: (count) => restarted.resolve(count), gaveUp: (reason) => gaveUp.resolve(reason) },
    );
    const client = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'us-east-1', credentials: LOCAL_DYNAMODB_CREDENTIALS }));
    try {
      await client.send(new PutCommand({ TableName: TABLE, Item: { PK: 'kept', SK: 'kept', value: 42 } }));
      const first = dynamo.pid!;
      process.kill(first, 'SIGKILL');
      await expect(Promise.race([restarted.promise, gaveUp.promise.then((reason) => Promise.reject(new Error(reason)))])).resolves.toBe(1);
      expect(dynamo.pid).not.toBe(first);
      const read = await client.send(new GetCommand({ TableName: TABLE, Key: { PK: 'kept', SK: 'kept' }, ConsistentRead: true }));
      expect(read.Item).toMatchObject({ value: 42 });
    } finally {
      client.destroy();
    }
  });

  it('gives up with the reason when it keeps dying', async () => {
    const gaveUp = deferred<string>();
    let restarts = 0;
    dynamo = await superviseDynamoDbLocal({ maxRestarts: 0 }, { restarted: () => restarts++, gaveUp: (reason) => gaveUp.resolve(reason) });
    process.kill(dynamo.pid!, 'SIGKILL');
    await expect(gaveUp.promise).resolves.toMatch(/DynamoDB Local died 1 times/);
    expect(restarts).toBe(0);
  });
});
