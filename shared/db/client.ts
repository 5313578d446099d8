import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Config } from '../config';

export interface Database {
  client: DynamoDBDocumentClient;
  tableName: string;
}

let cached: { endpoint: string | undefined; database: Database } | undefined;

/**
 * The document client, created once per container (per process locally). A local endpoint gets
 * fixed dummy credentials: DynamoDB Local accepts any, and none are configured on a dev machine.
 */
export function database(cfg: Config): Database {
  if (cached && cached.endpoint === cfg.DYNAMODB_ENDPOINT && cached.database.tableName === cfg.TABLE_NAME) {
    return cached.database;
  }
  const client = new DynamoDBClient({
    region: cfg.AWS_REGION,
    ...(cfg.DYNAMODB_ENDPOINT
      ? { endpoint: cfg.DYNAMODB_ENDPOINT, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
  const document = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  cached = { endpoint: cfg.DYNAMODB_ENDPOINT, database: { client: document, tableName: cfg.TABLE_NAME } };
  return cached.database;
}
