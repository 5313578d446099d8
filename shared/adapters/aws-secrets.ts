import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SecretsManagerClientConfig } from '@aws-sdk/client-secrets-manager';
import { isAwsUnavailable } from '../aws-unavailable';
import { timedRequestHandler } from '../config';
import type { Config } from '../config';
import { rootSecretId, secretStringOf } from '../ports/secrets';
import { providerSecretsOf } from '../ports/provider-secrets';
import type { SecretSource } from '../ports/secrets';
import { speechKeysOf } from '../ports/speech';
import { pushKeysOf } from '../ports/push';
import { ServiceUnavailableError } from '../errors';

/** Attempts per read, the first included (the SDK's standard retry mode backs off between them). */
const SECRETS_MAX_ATTEMPTS = 3;

/**
 * The root secret from Secrets Manager (GetSecretValue, through the SDK's client); the stack
 * generates it and passes only its ARN. The client has the AWS call timeouts of issue 19: a
 * stalled Secrets Manager fails the attempt, and after the retries the caller gets the contract's
 * 503. ports/secrets.ts `cachedKeys` decides when to read it again. `reach` points the client
 * elsewhere (tests: a stand-in endpoint and its credentials).
 *
 * The authorizer does not use this: the client would take its bundle past its goal
 * (signed-reads.ts).
 */
export function secretsManagerSource(cfg: Config, reach: Pick<SecretsManagerClientConfig, 'endpoint' | 'credentials'> = {}): SecretSource {
  // The root secret's ARN only where it is read: the speech functions read the speech secret alone.
  const secretId = () => rootSecretId(cfg);
  const client = new SecretsManagerClient({
    region: cfg.AWS_REGION,
    maxAttempts: SECRETS_MAX_ATTEMPTS,
    retryMode: 'standard',
    requestHandler: timedRequestHandler(cfg.AWS_CONNECT_TIMEOUT_MS, cfg.AWS_REQUEST_TIMEOUT_MS),
    ...reach,
  });
  const read = async (id: string) => {
    let result;
    try {
      result = await client.send(new GetSecretValueCommand({ SecretId: id }));
    } catch (error) {
      // Unreachable, timed out, throttled or 5xx after the retries: the contract's 503, "try
      // again". Anything else is a deployment fault: a bare 500.
      if (isAwsUnavailable(error)) throw ServiceUnavailableError.busy(error);
      throw error;
    }
    return secretStringOf(result);
  };
  /**
   * A JSON secret of keys, parsed, read again after KEYS_MAX_AGE_SECONDS as the root secret is;
   * a failed read is not kept (the next use reads again); none where the function has no ARN.
   */
  const cachedSecret = <T>(arn: () => string | undefined, parse: (json: string) => T, none: T) => {
    let cached: { pending: Promise<T>; at: number } | undefined;
    return (): Promise<T> => {
      const now = Date.now();
      if (!cached || now - cached.at >= cfg.KEYS_MAX_AGE_SECONDS * 1000) {
        const id = arn();
        const pending = id ? read(id).then(parse) : Promise.resolve(none);
        pending.catch(() => (cached = undefined));
        cached = { pending, at: now };
      }
      return cached.pending;
    };
  };
  return {
    rootSecret: () => read(secretId()),
    // The speech providers' keys (shared/ports/speech.ts); only in the bundles of routes that issue
    // speech credentials (shared/bundle-defines.d.ts).
    ...(typeof BUNDLED_SPEECH === 'string' && BUNDLED_SPEECH !== 'issuer' ? {} : { speechKeys: cachedSecret(() => cfg.SPEECH_SECRET_ARN, speechKeysOf, {}) }),
    // Apple's private key and WeChat's app secrets, one JSON secret (shared/ports/provider-secrets.ts).
    providerSecrets: cachedSecret(() => cfg.SOCIAL_SECRET_ARN, providerSecretsOf, {}),
    // The silent push's keys, a secret of their own (shared/ports/push.ts): only where pushes are
    // sent, the fan-out (shared/bundle-defines.d.ts), the one function the stack gives its ARN and read.
    ...(typeof BUNDLED_PUSH === 'boolean' && !BUNDLED_PUSH ? {} : { pushKeys: cachedSecret(() => cfg.PUSH_SECRET_ARN, pushKeysOf, {}) }),
  };
}
