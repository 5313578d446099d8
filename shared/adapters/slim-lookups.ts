import type { Config } from '../config';
import { keys, sessionMarker } from '../db/keys';
import { LOCAL_DYNAMODB_CREDENTIALS } from '../db/table';
import { callAws, credentialsFromEnvironment } from './aws-json-client';
import type { AwsJsonTarget } from './aws-json-client';

/**
 * The authorizer's read of an account's token version and the token's session marker (one
 * DynamoDB GetItem) without the AWS SDK, whose DynamoDB client would be most of its bundle and
 * cold start. Locally the same code reads DynamoDB Local. (Its other read, the root secret, is
 * aws-secrets.ts, which every function uses.) The rule is users-repository's `profileHonours`.
 */
export type TokenStandingLookup = (token: { userId: number; tokenVersion: number; sessionId?: string }) => Promise<boolean>;

function dynamoTarget(cfg: Config): AwsJsonTarget {
  return {
    service: 'dynamodb',
    region: cfg.AWS_REGION,
    timeoutMs: cfg.DYNAMODB_CONNECT_TIMEOUT_MS + cfg.DYNAMODB_REQUEST_TIMEOUT_MS,
    ...(cfg.DYNAMODB_ENDPOINT ? { endpoint: cfg.DYNAMODB_ENDPOINT, credentials: () => LOCAL_DYNAMODB_CREDENTIALS } : { credentials: credentialsFromEnvironment }),
  };
}

export function tokenStandingLookup(cfg: Config): TokenStandingLookup {
  const target = dynamoTarget(cfg);
  return async ({ userId, tokenVersion, sessionId }) => {
    const key = keys.user(userId);
    const marker = sessionId === undefined ? undefined : sessionMarker(sessionId);
    const result = await callAws<{ Item?: Record<string, { N?: string } | undefined> }>(target, 'GetItem', {
      TableName: cfg.TABLE_NAME,
      Key: Object.fromEntries(Object.entries(key).map(([name, value]) => [name, { S: value }])),
      ProjectionExpression: marker ? 'tokenVersion, #session' : 'tokenVersion',
      ...(marker ? { ExpressionAttributeNames: { '#session': marker } } : {}),
      ConsistentRead: true,
    });
    const version = result.Item?.tokenVersion?.N;
    if (version === undefined || Number(version) !== tokenVersion) return false;
    return marker === undefined || result.Item?.[marker] !== undefined;
  };
}
