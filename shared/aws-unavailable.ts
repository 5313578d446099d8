import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';

/**
 * True for a failed AWS call worth "try again later" (the contract's 503) once the SDK's retries
 * are spent: throttling, a 5xx, a timeout or a lost connection, by the SDK's own classification
 * (the one its retries use). Anything else (a failed condition, access denied, no such secret) is
 * the request's or the deployment's fault. DynamoDB and Secrets Manager answer by this one rule.
 */
export function isAwsUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const failure = error as Parameters<typeof isTransientError>[0];
  return isThrottlingError(failure) || isTransientError(failure) || isServerError(failure);
}
