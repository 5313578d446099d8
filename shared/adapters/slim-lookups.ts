import type { Config } from '../config';
import { keys } from '../db/keys';
import { LOCAL_DYNAMODB_CREDENTIALS } from '../db/table';
import { callAws, credentialsFromEnvironment } from './aws-json-client';
import type { AwsJsonTarget } from './aws-json-client';

/**
 * The authorizer's read of an account's token version (DynamoDB GetItem) without the AWS SDK, whose
 * DynamoDB client would be most of its bundle and cold start. Locally the same code reads
 * DynamoDB Local. (Its other read, the root secret, is aws-secrets.ts, which every function uses.)
 */
export type TokenVersionLookup = (userId: number) => Promise<number | undefined>;

function dynamoTarget(cfg: Config): AwsJsonTarget {
  return {
    service: 'dynamodb',
    region: cfg.AWS_REGION,
    timeoutMs: cfg.DYNAMODB_CONNECT_TIMEOUT_MS + cfg.DYNAMODB_REQUEST_TIMEOUT_MS,
    ...(cfg.DYNAMODB_ENDPOINT ? { endpoint: cfg.DYNAMODB_ENDPOINT, credentials: () => LOCAL_DYNAMODB_CREDENTIALS } : { credentials: credentialsFromEnvironment }),
  };
}

export function tokenVersionLookup(cfg: Config): TokenVersionLookup {
  const target = dynamoTarget(cfg);
  return async (userId) => {
    const key = keys.user(userId);
    const result = await callAws<{ Item?: { tokenVersion?: { N?: string } } }>(target, 'GetItem', {
      TableName: cfg.TABLE_NAME,
      Key: Object.fromEntries(Object.entries(key).map(([name, value]) => [name, { S: value }])),
      ProjectionExpression: 'tokenVersion',
      ConsistentRead: true,
    });
    const version = result.Item?.tokenVersion?.N;
    return version === undefined ? undefined : Number(version);
  };
}
