import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { Remember } from '../../db/transactions';
import type { Logger } from '../../logging/logger';
import type { InvocationMetrics } from '../../ports/metrics';

/** The caller a Bearer route serves, as the authorizer established it. */
export interface Caller {
  userId: number;
  tokenVersion: number;
  expiresAt: number;
  /** The session of the caller's token (absent in tokens from before sessions). */
  sessionId?: string;
}

/**
 * What the endpoint's middlewares learn of one invocation, kept on its Lambda context (a new
 * object per invocation, on Lambda and in the local server). Each field is written by one
 * middleware, named beside it, and read by those after it and by the handler.
 */
export interface Invocation extends Context {
  /** request-log */
  log?: Logger;
  metrics?: InvocationMetrics;
  startedAt?: number;
  /** json-body: the parsed body; validation: the body as its schema outputs it. */
  body?: unknown;
  /** validation */
  query?: unknown;
  params?: unknown;
  /** caller: present on Bearer routes only. */
  caller?: Caller;
  /** idempotency: the writes that store the response for a repeat with the same key. */
  remember?: Remember<unknown>;
  /** idempotency: the fingerprint a repeat must match. */
  requestHash?: string;
}

/** Results are plain data or a Reply until the response middleware turns them into a proxy result. */
export type EndpointRequest = Request<APIGatewayProxyEvent, unknown, Error, Invocation>;
export type EndpointMiddleware = MiddlewareObj<APIGatewayProxyEvent, unknown, Error, Invocation>;
