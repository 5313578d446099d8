import { ResponseType } from 'aws-cdk-lib/aws-apigateway';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { GATEWAY_RESPONSES } from '../../shared/http/gateway-responses';
import type { GatewayResponse, GatewayResponseType } from '../../shared/http/gateway-responses';
import { CORS_EXPOSED_HEADERS, SECURITY_HEADERS, anyOrigin } from '../../shared/http/headers';

/**
 * Types whose message API Gateway words better than a fixed text (`Invalid request body`,
 * `Endpoint request timed out`): the body keeps the contract's shape, the message is the
 * gateway's, already JSON-quoted by `messageString`.
 */
const GATEWAY_WORDED: ReadonlySet<GatewayResponseType> = new Set(['DEFAULT_4XX', 'DEFAULT_5XX']);

/** A static header value in a gateway response is a single-quoted literal. */
const literal = (value: string) => `'${value}'`;

/**
 * CORS on gateway responses. A gateway response cannot choose among several origins, so with a
 * list it echoes the caller's Origin: these bodies are fixed error texts that no origin could
 * learn anything from, and without the header a browser app would see an opaque network error
 * instead of the 401 that tells it to sign in again.
 */
export function gatewayCorsHeaders(corsOrigins: readonly string[]): Record<string, string> {
  const allowOrigin = corsOrigins.length === 1 ? literal(corsOrigins[0]!) : 'method.request.header.Origin';
  return {
    'Access-Control-Allow-Origin': allowOrigin,
    'Access-Control-Expose-Headers': literal(CORS_EXPOSED_HEADERS),
    ...(anyOrigin(corsOrigins) ? {} : { Vary: literal('Origin') }),
  };
}

/** The handlers' security headers, except any whose value holds a quote a literal cannot carry (CSP). */
function securityHeaders(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(SECURITY_HEADERS)
      .filter(([name, value]) => name !== 'Content-Type' && !value.includes("'"))
      .map(([name, value]) => [name, literal(value)]),
  );
}

export function gatewayResponseBody(type: GatewayResponseType): string {
  const { body } = GATEWAY_RESPONSES[type];
  if (!GATEWAY_WORDED.has(type)) return JSON.stringify(body);
  return `{"code":${body.code},"message":$context.error.messageString,"error":${JSON.stringify(body.error)}}`;
}

/**
 * Every answer API Gateway gives on its own (refused token, unknown path, throttled, too large,
 * any other 4xx/5xx) in the contract's `{code, message, error}` shape, from the same table the
 * local server answers with.
 */
export function addGatewayResponses(api: RestApi, corsOrigins: readonly string[]): void {
  const headers = { ...securityHeaders(), ...gatewayCorsHeaders(corsOrigins) };
  for (const type of Object.keys(GATEWAY_RESPONSES) as GatewayResponseType[]) {
    const response: GatewayResponse = GATEWAY_RESPONSES[type];
    const extra = Object.fromEntries(Object.entries(response.headers ?? {}).map(([name, value]) => [name, literal(value)]));
    api.addGatewayResponse(`Gateway${type}`, {
      type: ResponseType.of(type),
      // Unset: API Gateway answers with the status of what happened (502, 504, 403, 415 ...).
      statusCode: response.gatewayStatus ? undefined : String(response.status),
      responseHeaders: { ...headers, ...extra },
      templates: { 'application/json': gatewayResponseBody(type) },
    });
  }
}
