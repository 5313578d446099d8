import { fromEnv } from '@aws-sdk/credential-provider-env';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import type { Config } from '../config';
import { sessionMarker, userKey } from '../db/keys';
import { LOCAL_DYNAMODB_CREDENTIALS } from '../db/table';
import { ServiceUnavailableError } from '../errors';
import { rootSecretId, secretStringOf } from '../ports/secrets';
import type { SecretSource } from '../ports/secrets';

/**
 * The authorizer's reads (docs/performance.md): each is one POST signed by the AWS SDK's own
 * signer (@smithy/signature-v4, with the SDK's environment credential provider and node:crypto
 * hashing) and sent with fetch. The SDK's DynamoDB and Secrets Manager clients are 190 and 165 KB,
 * over twice the authorizer's 80 KB goal (its cold start sits in front of every Bearer request
 * that API Gateway's cache does not answer). Every function reads the secret with the SDK's
 * client (aws-secrets.ts).
 *
 * One attempt, no retries: a failure throws. API Gateway answers a throwing authorizer with
 * AUTHORIZER_FAILURE, the contract's 503 "try again"; it never becomes an Allow or a sign-out.
 */
export type TokenStandingLookup = (token: { userId: number; tokenVersion: number; sessionId?: string }) => Promise<boolean>;

type Credentials = ConstructorParameters<typeof SignatureV4>[0]['credentials'];

/** Where a call goes and as whom: a stand-in endpoint and its credentials locally and in tests. */
export interface Reach {
  endpoint?: string;
  credentials?: Credentials;
}

interface JsonService {
  /** The signing name, and the first label of the regional endpoint's host. */
  name: 'dynamodb' | 'secretsmanager';
  /** The SDK's service id as its endpoint variable names it: `AWS_ENDPOINT_URL_<id>`. */
  endpointId: 'DYNAMODB' | 'SECRETS_MANAGER';
  /** `X-Amz-Target` is `<prefix>.<operation>`. */
  targetPrefix: string;
  contentType: string;
}

const DYNAMODB: JsonService = { name: 'dynamodb', endpointId: 'DYNAMODB', targetPrefix: 'DynamoDB_20120810', contentType: 'application/x-amz-json-1.0' };
const SECRETS_MANAGER: JsonService = { name: 'secretsmanager', endpointId: 'SECRETS_MANAGER', targetPrefix: 'secretsmanager', contentType: 'application/x-amz-json-1.1' };

/** A call the service answered with an error: its HTTP status and error type (`__type`). */
class SignedCallError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
  ) {
    super(`AWS call failed: ${type} (${status})`);
    this.name = 'SignedCallError';
  }
}

/**
 * The endpoint the environment configures for a service, as the SDK's clients read it (its
 * "service-specific endpoints"): `AWS_ENDPOINT_URL_<SERVICE>`, else `AWS_ENDPOINT_URL`, unless
 * `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is true. Unset on AWS; `npm run start:deployed` points the
 * deployed functions at DynamoDB Local and its Secrets Manager stand-in with them, and the
 * authorizer's reads must go where the other functions' SDK clients go.
 */
export function configuredEndpoint(service: Pick<JsonService, 'endpointId'>, env: Record<string, string | undefined> = process.env): string | undefined {
  if (env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS?.toLowerCase() === 'true') return undefined;
  return env[`AWS_ENDPOINT_URL_${service.endpointId}`] || env.AWS_ENDPOINT_URL || undefined;
}

/** One signed JSON-protocol call; the timeout covers the whole exchange (fetch has one deadline). */
function jsonCaller(service: JsonService, region: string, timeoutMs: number, reach: Reach) {
  const url = new URL(reach.endpoint ?? configuredEndpoint(service) ?? `https://${service.name}.${region}.amazonaws.com/`);
  // On Lambda the execution role's credentials are in the environment; the SDK's provider reads them.
  const signer = new SignatureV4({ service: service.name, region, credentials: reach.credentials ?? fromEnv(), sha256: Hash.bind(null, 'sha256') });
  return async <T>(operation: string, input: unknown): Promise<T> => {
    const body = JSON.stringify(input);
    const signed = await signer.sign({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: {},
      headers: { host: url.host, 'content-type': service.contentType, 'x-amz-target': `${service.targetPrefix}.${operation}` },
      body,
    });
    // fetch sets Host itself and refuses to be given one.
    const headers = { ...signed.headers };
    delete headers.host;
    const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) {
      const { __type } = (await response.json().catch(() => ({}))) as { __type?: string };
      throw new SignedCallError(response.status, __type?.split('#').pop() ?? 'UnknownError');
    }
    return (await response.json()) as T;
  };
}

/** The authorizer's read of an account's token version and the token's session marker; the rule is users-repository's `profileHonours`. */
export function tokenStandingLookup(cfg: Config): TokenStandingLookup {
  const call = jsonCaller(
    DYNAMODB,
    cfg.AWS_REGION,
    cfg.DYNAMODB_CONNECT_TIMEOUT_MS + cfg.DYNAMODB_REQUEST_TIMEOUT_MS,
    cfg.DYNAMODB_ENDPOINT ? { endpoint: cfg.DYNAMODB_ENDPOINT, credentials: LOCAL_DYNAMODB_CREDENTIALS } : {},
  );
  return async ({ userId, tokenVersion, sessionId }) => {
    const key = userKey(userId);
    const marker = sessionId === undefined ? undefined : sessionMarker(sessionId);
    const result = await call<{ Item?: Record<string, { N?: string } | undefined> }>('GetItem', {
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

/**
 * The root secret (GetSecretValue). Unreachable, timed out, throttled or a 5xx: the contract's
 * 503, "try again". Anything else (access denied, no such secret) is a deployment fault: a bare 500.
 */
export function signedSecretsManagerSource(cfg: Config, reach: Reach = {}): SecretSource {
  const secretId = rootSecretId(cfg);
  const call = jsonCaller(SECRETS_MANAGER, cfg.AWS_REGION, cfg.AWS_CONNECT_TIMEOUT_MS + cfg.AWS_REQUEST_TIMEOUT_MS, reach);
  return {
    async rootSecret() {
      let result: { SecretString?: string };
      try {
        result = await call<{ SecretString?: string }>('GetSecretValue', { SecretId: secretId });
      } catch (error) {
        // fetch itself failing (refused, reset, timed out) is "unreachable" too.
        const refused = error instanceof SignedCallError && error.status < 500 && error.status !== 429 && !/Throttl/.test(error.type);
        if (refused) throw error;
        throw ServiceUnavailableError.busy(error);
      }
      return secretStringOf(result);
    },
  };
}
