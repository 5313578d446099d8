import { ServiceUnavailableError } from '../errors';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from './error-map';

/**
 * The bodies API Gateway itself answers with, before or instead of a handler, in the contract's
 * `{code, message, error}` shape. The CDK stack configures them as gateway responses; the local
 * server answers with the same data.
 */
export interface GatewayResponse {
  /** The status the local server answers with, and the one the stack sets unless `gatewayStatus`. */
  status: number;
  body: { code: number; message: string; error: string };
  /**
   * The catch-all types cover several statuses (DEFAULT_5XX: a crashed function's 502, an
   * authorizer failure's 500; DEFAULT_4XX: 403, 415 ...): on AWS the stack leaves the status to
   * API Gateway, so the real one gets through, and only the body takes the contract's shape.
   */
  gatewayStatus?: true;
  /** Headers beyond the security and CORS headers every gateway response carries. */
  headers?: Record<string, string>;
}

/** API Gateway's throttle refills every second: a client may try again after one. */
const THROTTLED_RETRY_AFTER_SECONDS = 1;

export const GATEWAY_RESPONSES = {
  UNAUTHORIZED: { status: 401, body: { code: 401, message: 'Unauthorized', error: 'UNAUTHORIZED' } },
  // A Deny policy is a refused token too: the contract answers it as 401, not 403.
  ACCESS_DENIED: { status: 401, body: { code: 401, message: 'Unauthorized', error: 'UNAUTHORIZED' } },
  // A REST API answers an unknown path (or method) with MISSING_AUTHENTICATION_TOKEN.
  MISSING_AUTHENTICATION_TOKEN: { status: 404, body: { code: 404, message: 'Not found', error: 'NOT_FOUND' } },
  // The admin API's AWS_IAM refusals (issue 37): unsigned (or a person's bearer token), signed
  // wrongly or for another request, or dated more than 15 minutes away.
  INCOMPLETE_SIGNATURE: { status: 403, body: { code: 403, message: 'Forbidden', error: 'FORBIDDEN' } },
  INVALID_SIGNATURE: { status: 403, body: { code: 403, message: 'Forbidden', error: 'FORBIDDEN' } },
  EXPIRED_TOKEN: { status: 403, body: { code: 403, message: 'Forbidden', error: 'FORBIDDEN' } },
  THROTTLED: {
    status: 429,
    body: { code: 429, message: 'Too many requests', error: 'THROTTLED' },
    headers: { 'Retry-After': String(THROTTLED_RETRY_AFTER_SECONDS) },
  },
  REQUEST_TOO_LARGE: { status: 413, body: { code: 413, message: 'Request too large', error: 'PAYLOAD_TOO_LARGE' } },
  // The authorizer could not decide (its token-version read or the secret timed out or failed):
  // a dependency is unavailable, so the contract's 503, not a 500. A refused token is UNAUTHORIZED.
  AUTHORIZER_FAILURE: {
    status: 503,
    body: { code: 503, message: ServiceUnavailableError.busyMessage, error: ServiceUnavailableError.code },
    headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
  },
  // A function that ran past its timeout (or API Gateway's 29 s): 504, not the catch-all.
  INTEGRATION_TIMEOUT: { status: 504, body: { code: 504, message: 'Gateway timeout', error: 'GATEWAY_TIMEOUT' } },
  DEFAULT_4XX: { status: 400, body: { code: 400, message: 'Bad request', error: 'BAD_REQUEST' }, gatewayStatus: true },
  DEFAULT_5XX: { status: 500, body: { code: 500, message: 'Internal server error.', error: 'INTERNAL' }, gatewayStatus: true },
} as const satisfies Record<string, GatewayResponse>;

export type GatewayResponseType = keyof typeof GATEWAY_RESPONSES;

/** The authorizer's identity-source validation: requests that fail it never reach the function. */
export const AUTHORIZATION_HEADER_PATTERN = '^[Bb][Ee][Aa][Rr][Ee][Rr] [-0-9a-zA-Z._~+/]+=*$';
