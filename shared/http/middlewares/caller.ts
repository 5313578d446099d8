import type { APIGatewayProxyEvent } from 'aws-lambda';
import { UnauthorizedError } from '../../errors';
import { SESSION_ID_PATTERN } from '../../identity/refresh-tokens';
import { CLOCK_TOLERANCE_SECONDS } from '../../identity/tokens';
import { epochSeconds } from '../../ports/clock';
import type { Clock } from '../../ports/clock';
import type { Caller, EndpointMiddleware } from './invocation';



/** Reads the caller the authorizer put into the request context (values arrive as strings). */
function callerFrom(event: APIGatewayProxyEvent, now: Date): Caller {
  const context = event.requestContext?.authorizer ?? {};
  const userId = Number(context.userId);
  const tokenVersion = Number(context.tokenVersion);
  const expiresAt = Number(context.exp);
  if (![userId, tokenVersion, expiresAt].every(Number.isSafeInteger)) throw new UnauthorizedError('Unauthorized');
  // API Gateway may serve a cached Allow for minutes: it must never outlive the token itself.
  if (expiresAt + CLOCK_TOLERANCE_SECONDS <= epochSeconds(now)) throw new UnauthorizedError('Unauthorized');
  const sessionId = context.sessionId;
  if (sessionId === undefined || sessionId === null || sessionId === '') return { userId, tokenVersion, expiresAt };
  if (typeof sessionId !== 'string' || !SESSION_ID_PATTERN.test(sessionId)) throw new UnauthorizedError('Unauthorized');
  return { userId, tokenVersion, expiresAt, sessionId };
}

/**
 * On a Bearer route, reads the caller from the authorizer's context into `context.caller`: a
 * missing or malformed context, or a token past its expiry (a cached Allow), is a 401 before the
 * handler runs. Public routes have no caller.
 */
export function caller(options: { bearer: boolean; clock: Clock }): EndpointMiddleware {
  return {
    before: async ({ event, context }) => {
      if (options.bearer) context.caller = callerFrom(event, options.clock.now());
    },
  };
}
