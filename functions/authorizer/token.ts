import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { secretsManagerSource } from '../../shared/adapters/aws-secrets';
import { config } from '../../shared/config';
import { database } from '../../shared/db/client';
import { UnauthorizedError } from '../../shared/errors';
import { authorize } from '../../shared/identity/authorize';
import { createLogger } from '../../shared/logging/logger';
import { systemClock } from '../../shared/ports/clock';
import { cachedKeys } from '../../shared/ports/secrets';
import type { ServiceKeys } from '../../shared/ports/secrets';
import { portOverrides } from '../../shared/runtime';

let keys: (() => Promise<ServiceKeys>) | undefined;

/** The API's TOKEN authorizer: verifies the bearer JWT and hands the caller to the handlers. */
export async function handler(event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const cfg = config();
  const overrides = portOverrides();
  keys ??= cachedKeys(overrides.secrets ?? secretsManagerSource(cfg));
  try {
    return await authorize(event, { config: cfg, clock: overrides.clock ?? systemClock, db: database(cfg), keys });
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
    createLogger(cfg.LOG_LEVEL).info('token refused', { reason: error.cause instanceof Error ? error.cause.name : 'format' });
    // The exact message API Gateway expects for a 401; nothing about why.
    throw new Error('Unauthorized');
  }
}
