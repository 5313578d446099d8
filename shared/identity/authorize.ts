import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import type { TokenStandingLookup } from '../adapters/signed-reads';
import type { Config } from '../config';
import { UnauthorizedError } from '../errors';
import type { Clock } from '../ports/clock';
import type { ServiceKeys } from '../ports/secrets';
import { verifyToken } from './tokens';

export interface AuthorizerDependencies {
  config: Config;
  clock: Clock;
  /** Whether the token's account still has its version and its session still lives: one read. */
  tokenStanding: TokenStandingLookup;
  keys(): Promise<ServiceKeys>;
}

/** `Bearer <header>.<payload>.<signature>`; the scheme is case-insensitive (RFC 9110). */
const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i;

/**
 * The policy covers every method and path of the API's stage, not just the one called: API
 * Gateway caches the result per token, and a cached policy naming one route would deny the others.
 */
export function wholeApiResource(methodArn: string): string {
  // `arn:aws:execute-api:<region>:<account>:<apiId>/<stage>/<method>/<path>`: the API id ends the
  // part before the first slash, so the stage is the first slash-separated segment after it.
  const [arnWithApiId, stage] = methodArn.split('/', 2);
  if (!arnWithApiId || !stage || !/:[^:/]+$/.test(arnWithApiId)) throw new UnauthorizedError('Unauthorized');
  return `${arnWithApiId}/${stage}/*/*`;
}

/**
 * Decides a TOKEN authorizer request. Refusals throw UnauthorizedError, whose message says nothing
 * of the reason (API Gateway turns the thrown "Unauthorized" into its 401 response); a failing
 * dependency throws something else, which API Gateway answers with a 500, not a sign-out.
 */
export async function authorize(event: APIGatewayTokenAuthorizerEvent, deps: AuthorizerDependencies): Promise<APIGatewayAuthorizerResult> {
  const match = BEARER.exec(event.authorizationToken ?? '');
  if (!match) throw new UnauthorizedError('Unauthorized');
  const { tokenSigningKey } = await deps.keys();
  const token = await verifyToken(tokenSigningKey, match[1]!, deps.clock.now(), {
    issuer: deps.config.JWT_ISSUER,
    audience: deps.config.JWT_AUDIENCE,
    lifetimeMs: deps.config.TOKEN_TTL_MS,
  });
  // A password reset or account deletion raises or removes the version, and ending a session
  // removes its marker: their tokens end here.
  if (!(await deps.tokenStanding(token))) throw new UnauthorizedError('Unauthorized');
  return {
    principalId: String(token.userId),
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeApiResource(event.methodArn) }],
    },
    context: {
      userId: token.userId,
      tokenVersion: token.tokenVersion,
      exp: token.expiresAt,
      ...(token.sessionId === undefined ? {} : { sessionId: token.sessionId }),
    },
  };
}
