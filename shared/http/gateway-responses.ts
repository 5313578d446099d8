/**
 * The bodies API Gateway itself answers with, before or instead of a handler, in the contract's
 * `{code, message, error}` shape. The CDK stack configures them as gateway responses; the local
 * server answers with the same data.
 */
export interface GatewayResponse {
  status: number;
  body: { code: number; message: string; error: string };
}

export const GATEWAY_RESPONSES = {
  UNAUTHORIZED: { status: 401, body: { code: 401, message: 'Unauthorized', error: 'UNAUTHORIZED' } },
  // A Deny policy is a refused token too: the contract answers it as 401, not 403.
  ACCESS_DENIED: { status: 401, body: { code: 401, message: 'Unauthorized', error: 'UNAUTHORIZED' } },
  // A REST API answers an unknown path (or method) with MISSING_AUTHENTICATION_TOKEN.
  MISSING_AUTHENTICATION_TOKEN: { status: 404, body: { code: 404, message: 'Not found', error: 'NOT_FOUND' } },
  THROTTLED: { status: 429, body: { code: 429, message: 'Too many requests', error: 'THROTTLED' } },
  REQUEST_TOO_LARGE: { status: 413, body: { code: 413, message: 'Request too large', error: 'PAYLOAD_TOO_LARGE' } },
  DEFAULT_4XX: { status: 400, body: { code: 400, message: 'Bad request', error: 'BAD_REQUEST' } },
  DEFAULT_5XX: { status: 500, body: { code: 500, message: 'Internal server error.', error: 'INTERNAL' } },
} as const satisfies Record<string, GatewayResponse>;

export type GatewayResponseType = keyof typeof GATEWAY_RESPONSES;

/** API Gateway's payload limit for REST APIs. */
export const GATEWAY_MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

/** The authorizer's identity-source validation: requests that fail it never reach the function. */
export const AUTHORIZATION_HEADER_PATTERN = '^[Bb][Ee][Aa][Rr][Ee][Rr] [-0-9a-zA-Z._~+/]+=*$';
