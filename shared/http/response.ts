import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Config } from '../config';
import type { GuardedWrite, Remember } from '../db/transactions';
import type { Logger } from '../logging/logger';
import { errorResponse } from './error-map';
import { SECURITY_HEADERS, corsHeaders, headerValue } from './headers';

/** A result with response headers of its own (pagination links), or another success status (201 for a resource made). */
export class Reply<T = unknown> {
  constructor(
    readonly body: T,
    readonly headers: Record<string, string> = {},
    readonly status: 200 | 201 = 200,
  ) {}
}

/** The seed's success envelope for operations that return no resource. */
export const succeeded = (message: string) => ({ code: 0 as const, message });

/**
 * Answers `succeeded(message)` once `write` has committed. `write` adds `alongside` to its
 * transaction: the writes that store this very answer for Idempotency-Key replays.
 */
export async function succeededAfter(
  message: string,
  remember: Remember<ReturnType<typeof succeeded>>,
  write: (alongside: GuardedWrite[]) => Promise<void>,
): Promise<ReturnType<typeof succeeded>> {
  const response = succeeded(message);
  await write(remember(response));
  return response;
}

function proxyResult(status: number, body: unknown, headers: Record<string, string>, event: APIGatewayProxyEvent, cfg: Config): APIGatewayProxyResult {
  return {
    statusCode: status,
    headers: { ...SECURITY_HEADERS, ...corsHeaders(cfg.CORS_ORIGINS, headerValue(event.headers, 'origin')), ...headers },
    body: JSON.stringify(body),
  };
}

export function resultToResponse(result: unknown, event: APIGatewayProxyEvent, cfg: Config): APIGatewayProxyResult {
  return result instanceof Reply
    ? proxyResult(result.status, result.body, result.headers, event, cfg)
    : proxyResult(200, result ?? null, {}, event, cfg);
}

export function errorToResult(error: unknown, event: APIGatewayProxyEvent, cfg: Config, log: Logger): APIGatewayProxyResult {
  const requestId = event.requestContext?.requestId;
  const response = errorResponse(error, requestId);
  if (response.status >= 500) {
    const cause = error instanceof Error ? error : undefined;
    // Names and stack stay in the log; the response says nothing of them.
    log.error('request failed', {
      errorName: cause?.name,
      errorCode: response.body.error,
      stack: cause?.stack,
      causeName: cause?.cause instanceof Error ? cause.cause.name : undefined,
    });
  }
  return proxyResult(response.status, response.body, response.headers, event, cfg);
}
