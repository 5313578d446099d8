import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * The one table of the service. The CDK stack (infra/) and the local server both build the table
 * from these constants, so the key schema cannot drift between AWS and local mode.
 */
export const PARTITION_KEY = 'PK';
export const SORT_KEY = 'SK';
/** Epoch seconds after which DynamoDB may delete an item. Deletion is lazy: never rely on it. */
export const TTL_ATTRIBUTE = 'ttl';
/**
 * A local secondary index for "newest first" listings inside one user's partition. Local rather
 * than global so that a list read right after a write is strongly consistent.
 */
export const LIST_INDEX_NAME = 'ByCreated';
export const LIST_INDEX_SORT_KEY = 'LSK';

/** DynamoDB Local accepts any credentials; every local client signs with these. */
export const LOCAL_DYNAMODB_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

export type TableDefinition = Omit<CreateTableCommandInput, 'TableName'>;

export const tableDefinition: TableDefinition = {
  BillingMode: 'PAY_PER_REQUEST',
  AttributeDefinitions: [
    { AttributeName: PARTITION_KEY, AttributeType: 'S' },
    { AttributeName: SORT_KEY, AttributeType: 'S' },
    { AttributeName: LIST_INDEX_SORT_KEY, AttributeType: 'S' },
  ],
  KeySchema: [
    { AttributeName: PARTITION_KEY, KeyType: 'HASH' },
    { AttributeName: SORT_KEY, KeyType: 'RANGE' },
  ],
  LocalSecondaryIndexes: [
    {
      IndexName: LIST_INDEX_NAME,
      KeySchema: [
        { AttributeName: PARTITION_KEY, KeyType: 'HASH' },
        { AttributeName: LIST_INDEX_SORT_KEY, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    },
  ],
};
