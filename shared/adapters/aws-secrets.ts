import type { Config } from '../config';
import type { SecretSource } from '../ports/secrets';
import { ServiceUnavailableError } from '../errors';
import { AwsCallError, callAws, credentialsFromEnvironment } from './aws-json-client';
import type { AwsJsonTarget } from './aws-json-client';

/**
 * The root secret from Secrets Manager (GetSecretValue); the stack generates it and passes only
 * its ARN. A signed JSON call (aws-json-client.ts) instead of the SDK's Secrets Manager client:
 * the authorizer must stay small, and the five functions that sign tokens or hash codes save
 * 11 KB and ~1.5 ms of cold start each (README "Benchmarks"). Read once per container
 * (ports/secrets.ts `cachedKeys`).
 */
export function secretsManagerSource(
  cfg: Config,
  reach: Pick<AwsJsonTarget, 'endpoint' | 'credentials'> = { credentials: credentialsFromEnvironment },
): SecretSource {
  const secretId = cfg.JWT_SECRET_ARN;
  if (!secretId) throw new Error('JWT_SECRET_ARN is not set');
  const target: AwsJsonTarget = {
    service: 'secretsmanager',
    region: cfg.AWS_REGION,
    timeoutMs: cfg.AWS_CONNECT_TIMEOUT_MS + cfg.AWS_REQUEST_TIMEOUT_MS,
    ...reach,
  };
  return {
    async rootSecret() {
      let result: { SecretString?: string };
      try {
        result = await callAws<{ SecretString?: string }>(target, 'GetSecretValue', { SecretId: secretId });
      } catch (error) {
        // Unreachable, timed out, throttled or 5xx after the retries: the contract's 503, "try
        // again". Anything else (access denied, no such secret) is a deployment fault: a bare 500.
        if (error instanceof AwsCallError && (error.status === 0 || error.status >= 500 || /Throttl/.test(error.errorType))) {
          throw new ServiceUnavailableError('The service is busy. Try again shortly.', { cause: error });
        }
        throw error;
      }
      if (!result.SecretString) throw new Error('The root secret has no string value');
      return result.SecretString;
    },
  };
}
