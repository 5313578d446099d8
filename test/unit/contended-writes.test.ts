import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { USER_WRITE_RETRY } from '../../shared/db/account-guard';
import { writeAtomically } from '../../shared/db/transactions';
import { ServiceUnavailableError } from '../../shared/errors';

/**
 * DynamoDB Local runs transactions one at a time and never reports a TransactionConflict, so the
 * retry budget for contended user writes is checked here against a mocked client.
 */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
const db = { client, tableName: 'table' };
const dynamo = mockClient(DynamoDBDocumentClient);

const conflict = () =>
  Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
  });

const writes = [{ item: { ConditionCheck: { TableName: 'table', Key: { PK: 'a', SK: 'b' }, ConditionExpression: 'attribute_exists(PK)' } } }];

beforeEach(() => {
  dynamo.reset();
  // No waiting between attempts: the budget is about the number of attempts.
  vi.spyOn(Math, 'random').mockReturnValue(0);
});
afterEach(() => vi.restoreAllMocks());
afterAll(() => client.destroy());

function conflictsThenSuccess(conflicts: number) {
  let behaviour = dynamo.on(TransactWriteCommand);
  for (let index = 0; index < conflicts; index++) behaviour = behaviour.rejectsOnce(conflict());
  behaviour.resolves({});
}

describe('writes in a user partition', () => {
  it('outlast a conflict on all but the last attempt of their budget', async () => {
    conflictsThenSuccess(USER_WRITE_RETRY.maxAttempts - 1);
    await writeAtomically(db, writes, USER_WRITE_RETRY);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(USER_WRITE_RETRY.maxAttempts);
  });

  it('give up with 503 SERVICE_UNAVAILABLE after their budget', async () => {
    conflictsThenSuccess(USER_WRITE_RETRY.maxAttempts);
    await expect(writeAtomically(db, writes, USER_WRITE_RETRY)).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(USER_WRITE_RETRY.maxAttempts);
  });

  it('get a larger budget than the default, which gives up after 5 attempts', async () => {
    conflictsThenSuccess(5);
    await expect(writeAtomically(db, writes)).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(5);
    expect(USER_WRITE_RETRY.maxAttempts).toBeGreaterThan(5);
  });
});
