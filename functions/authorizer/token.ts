import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { signedSecretsManagerSource as secretsManagerSource, tokenStandingLookup } from '../../shared/adapters/signed-reads';
import type { TokenStandingLookup } from '../../shared/adapters/signed-reads';
import { config } from '../../shared/config';
import type { Config } from '../../shared/config';
import { UnauthorizedError } from '../../shared/errors';
import { authorize } from '../../shared/identity/authorize';
import { createLogger } from '../../shared/logging/logger';
import { systemClock } from '../../shared/ports/clock';
import { cachedKeys } from '../../shared/ports/secrets';
import type { SecretSource, ServiceKeys } from '../../shared/ports/secrets';
import { portOverrides } from '../../shared/runtime';

/**
 * The API's TOKEN authorizer: verifies the bearer JWT and hands the caller to the handlers.
 * It uses no AWS SDK (see shared/adapters/slim-lookups.ts): its cold start sits in front of
 * every Bearer request whose token is not in API Gateway's cache.
 */
let dependencies:
  | { cfg: Config; secrets: SecretSource | undefined; keys: () => Promise<ServiceKeys>; tokenStanding: TokenStandingLookup }
  | undefined;

export async function handler(event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const cfg = config();
  const overrides = portOverrides();
  // Built once per container. Rebuilt only when the settings or the secret source are replaced:
  // a local server started after another in the same process (tests) has its own table and root
  // secret, and must not verify tokens with the first one's key or read the first one's table.
  if (dependencies?.cfg !== cfg || dependencies.secrets !== overrides.secrets) {
    dependencies = {
      cfg,
      secrets: overrides.secrets,
      keys: cachedKeys(overrides.secrets ?? secretsManagerSource(cfg), cfg.KEYS_MAX_AGE_SECONDS * 1000),
      tokenStanding: tokenStandingLookup(cfg),
    };
  }
  const { keys, tokenStanding } = dependencies;
  try {
    return await authorize(event, { config: cfg, clock: overrides.clock ?? systemClock, tokenStanding, keys });
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
    createLogger(cfg.LOG_LEVEL, {}, { serviceName: cfg.SERVICE_NAME }).info('token refused', { reason: error.cause instanceof Error ? error.cause.name : 'format' });
    // The exact message API Gateway expects for a 401; nothing about why.
    throw new Error('Unauthorized');
  }
}
