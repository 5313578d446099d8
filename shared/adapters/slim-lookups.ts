import type { Config } from '../config';
import { keys } from '../db/keys';
import type { SecretSource } from '../ports/secrets';
import { callAws, credentialsFromEnvironment } from './aws-json-client';
import type { AwsJsonTarget } from './aws-json-client';

/**
 * The authorizer's two reads without the AWS SDK: an account's token version (DynamoDB GetItem)
 * and the root secret (Secrets Manager GetSecretValue). Locally the same code reads DynamoDB Local.
 */
export type TokenVersionLookup = (userId: number) => Promise<number | undefined>;

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

function dynamoTarget(cfg: Config): AwsJsonTarget {
  return {
    service: 'dynamodb',
    region: cfg.AWS_REGION,
    ...(cfg.DYNAMODB_ENDPOINT ? { endpoint: cfg.DYNAMODB_ENDPOINT, credentials: () => LOCAL_CREDENTIALS } : { credentials: credentialsFromEnvironment }),
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

export function slimSecretSource(cfg: Config): SecretSource {
  const secretId = cfg.JWT_SECRET_ARN;
  if (!secretId) throw new Error('JWT_SECRET_ARN is not set');
  const target: AwsJsonTarget = { service: 'secretsmanager', region: cfg.AWS_REGION, credentials: credentialsFromEnvironment };
  return {
    async rootSecret() {
      const result = await callAws<{ SecretString?: string }>(target, 'GetSecretValue', { SecretId: secretId });
      if (!result.SecretString) throw new Error('The root secret has no string value');
      return result.SecretString;
    },
  };
}
