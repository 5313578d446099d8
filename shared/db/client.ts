import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { timedRequestHandler } from '../config';
import type { Config } from '../config';
import { isAwsUnavailable } from '../aws-unavailable';
import { ServiceUnavailableError } from '../errors';
import { LOCAL_DYNAMODB_CREDENTIALS } from './table';

export interface Database {
  client: DynamoDBDocumentClient;
  tableName: string;
}

/** Attempts per request, the first included; the SDK backs off with full jitter between them. */
export const DYNAMODB_MAX_ATTEMPTS = 4;

/**
 * A new document client: the context (shared/context.ts) creates one per container, the local
 * server one per server. A local endpoint gets fixed dummy credentials: DynamoDB Local accepts
 * any, and none are configured on a dev machine.
 */
export function database(cfg: Config): Database {
  const client = new DynamoDBClient({
    region: cfg.AWS_REGION,
    maxAttempts: DYNAMODB_MAX_ATTEMPTS,
    retryMode: 'standard',
    // Without these a stalled DynamoDB holds the request until the Lambda timeout (a bare gateway
    // 5xx) or, locally, until it resumes. A timed-out attempt is a TimeoutError, which the SDK
    // retries and, once they are spent, answers as 503 (isAwsUnavailable).
    requestHandler: timedRequestHandler(cfg.DYNAMODB_CONNECT_TIMEOUT_MS, cfg.DYNAMODB_REQUEST_TIMEOUT_MS),
    ...(cfg.DYNAMODB_ENDPOINT
      ? { endpoint: cfg.DYNAMODB_ENDPOINT, credentials: LOCAL_DYNAMODB_CREDENTIALS }
      : {}),
  });
  // Outermost step, so it sees only what the SDK's retries could not absorb: those failures
  // become one domain error (503, "try again") instead of a 500 that names DynamoDB.
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if (isAwsUnavailable(error)) throw ServiceUnavailableError.busy(error);
        throw error;
      }
    },
    { step: 'initialize', name: 'unavailableAsDomainError', priority: 'high' },
  );
  const document = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  return { client: document, tableName: cfg.TABLE_NAME };
}
