import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { signedSecretsManagerSource, tokenStandingLookup } from '../../shared/adapters/signed-reads';
import { perContainer } from '../../shared/context';
import type { AppContext } from '../../shared/context';
import { UnauthorizedError } from '../../shared/errors';
import { authorize } from '../../shared/identity/authorize';

type AuthorizerHandler = (event: APIGatewayTokenAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

/**
 * The API's TOKEN authorizer: verifies the bearer JWT and hands the caller to the handlers.
 * It bundles no SDK client, only the SDK's signer (shared/adapters/signed-reads.ts): its cold
 * start sits in front of every Bearer request whose token is not in API Gateway's cache.
 *
 * The authorizer serving one context: its keys are the context's (read once per container and
 * KEYS_MAX_AGE_SECONDS, as every function's), its token-version lookup is built once with it.
 */
function withContext(app: AppContext): AuthorizerHandler {
  const tokenStanding = tokenStandingLookup(app.config);
  const log = app.logging.logger();
  return async (event) => {
    try {
      return await authorize(event, { config: app.config, clock: app.clock, tokenStanding, keys: app.keys });
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
      log.info('token refused', { reason: error.cause instanceof Error ? error.cause.name : 'format' });
      // The exact message API Gateway expects for a 401; nothing about why.
      throw new Error('Unauthorized');
    }
  };
}

// As the endpoints: on Lambda a context of its own, built on the first request from the
// environment; the local server and tests give theirs with `withContext`.
export const handler = perContainer(withContext, { secrets: signedSecretsManagerSource });
