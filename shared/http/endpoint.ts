import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
// Types only: request schemas are zod/mini, parsed with its functional `safeParse`. Classic zod
// would add ~90 KB to each bundle and ~9 ms to its cold import (README "Benchmarks").
import type * as z from 'zod/v4/core';
import { config } from '../config';
import type { Config } from '../config';
import type { Database } from '../db/client';
import { UnauthorizedError } from '../errors';
import { SESSION_ID_PATTERN } from '../identity/refresh-tokens';
import { CLOCK_TOLERANCE_SECONDS } from '../identity/tokens';
import { createLogger, startInvocationLogging } from '../logging/logger';
import type { Logger } from '../logging/logger';
import { epochSeconds, systemClock } from '../ports/clock';
import type { CodeSender } from '../ports/code-sender';
import { InvocationMetrics } from '../ports/metrics';
import type { MetricSink } from '../ports/metrics';
import { cachedKeys } from '../ports/secrets';
import type { SecretSource, ServiceKeys } from '../ports/secrets';
import { findRoute, routeId } from '../routes';
import type { RouteDefinition, RouteId } from '../routes';
import { powertoolsMetricSink } from '../adapters/powertools-metrics';
import { portOverrides } from '../runtime';
import type { ServiceContext } from '../service-context';
import type { Remember } from '../db/transactions';
import type { Idempotency } from './idempotency';
import { parseJsonBody, validatePart } from './request';
import { Reply, errorToResult, logRequest, resultToResponse } from './response';
import { shapeResponse } from './response-shape';
import type { ResponseSpec } from './response-shape';

export type ProxyHandler = ((event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>) & {
  route: RouteDefinition;
  /** The handler's schemas and docs, read by the OpenAPI generator (infra/tools/openapi.ts). */
  definition: EndpointDefinition<unknown, unknown, unknown, ResponseSpec>;
};

/** The caller a Bearer route serves, as the authorizer established it. */
export interface Caller {
  userId: number;
  tokenVersion: number;
  expiresAt: number;
  /** The session of the caller's token (absent in tokens from before sessions). */
  sessionId?: string;
}

type Output<S> = S extends z.$ZodType ? z.output<S> : undefined;
const hasNoBody = (event: APIGatewayProxyEvent) => event.body === null || event.body === undefined || event.body === '';
/** The body `run` answers: the input of the response schema. */
export type ResultBody<R> = R extends ResponseSpec<infer S> ? z.input<S> : unknown;
/** What `run` may return: that body, plain or in a Reply. */
type Result<R> = ResultBody<R> | Reply<ResultBody<R>>;

export interface EndpointInput<B, Q, P> {
  body: Output<B>;
  query: Output<Q>;
  params: Output<P>;
  /** The signed-in caller; reading it on a public route is a 401. */
  caller: Caller;
  headers: Record<string, string | undefined>;
}

/** What `run` is given: the request, and the writes that store its response for replays. */
export interface RunInput<B, Q, P, R> extends EndpointInput<B, Q, P> {
  /**
   * The writes to add to the operation's transaction so that a repeat with the same
   * Idempotency-Key replays its response; none when the endpoint has no `idempotency` or the
   * request no key.
   */
  remember: Remember<ResultBody<R>>;
}

/**
 * The AWS adapters this function bundles; the route table says which it must have. The wrapper
 * imports none of them itself, so a function that never touches the table (health, openapi.json)
 * bundles no DynamoDB client.
 */
export interface Adapters {
  /** `database` of shared/db/client.ts, for routes whose `table` is not `none`. */
  database?: (cfg: Config) => Database;
  codeSender?: (cfg: Config) => CodeSender;
  secrets?: (cfg: Config) => SecretSource;
}

/** Request headers an operation reads, beyond Authorization and Content-Type. */
export type DocumentedHeader = 'Idempotency-Key' | 'Accept-Language';
/** Idempotency-Key is documented for the endpoints with an `idempotency`, and only for them. */
type DeclaredHeader = Exclude<DocumentedHeader, 'Idempotency-Key'>;

/** What the API reference says of an operation beyond its route and schemas. */
export interface EndpointDocs {
  summary: string;
  description?: string;
  /**
   * The domain errors (their `error` names, shared/http/error-map.ts) this operation answers
   * beyond those the generator adds from the route and schemas: validation, 401, 413, 422, 503.
   */
  errors?: readonly string[];
  headers?: readonly DeclaredHeader[];
}

export interface EndpointDefinition<B, Q, P, R = undefined> {
  body?: B;
  /**
   * The body may be left out altogether (no body, or an empty one): `run` then gets `undefined`.
   * A body that is sent must still be JSON and match `body`.
   */
  bodyOptional?: boolean;
  query?: Q;
  params?: P;
  /**
   * The schema of the 200 body, as its generated run-time shape (`<name>Response` of
   * shared/http/response-shapes.generated.ts, from the zod schema `<name>Schema` of
   * shared/http/schemas.ts). The result of `run` (or a Reply's body) is shaped by it before it is
   * sent: fields it does not list are dropped, so nothing internal can leak, and a result that
   * breaks it is a 500. The OpenAPI document is generated from the zod schema.
   */
  response?: R;
  docs: EndpointDocs;
  adapters?: Adapters;
  /** Honours Idempotency-Key: `idempotentIn(scope)` of shared/http/idempotency.ts. */
  idempotency?: Idempotency;
  run(input: RunInput<B, Q, P, R>, ctx: ServiceContext): Promise<Result<R>>;
}

interface State {
  input: RunInput<unknown, unknown, unknown, unknown>;
  log: Logger;
  startedAt: number;
  metrics: InvocationMetrics;
}

const rememberNothing: Remember<unknown> = () => [];

/** Lambda runs one invocation at a time per container; the local server does not. */
const onLambda = Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME);

const keysBySource = new WeakMap<SecretSource, () => Promise<ServiceKeys>>();

let emfSink: MetricSink | undefined;

/** Hands the invocation's counts to the sink: once per invocation, whatever its outcome. */
function publishMetrics(metrics: InvocationMetrics | undefined): void {
  if (!metrics) return;
  const counts = metrics.drain();
  if (counts.length === 0) return;
  (portOverrides().metrics ?? (emfSink ??= powertoolsMetricSink(config().SERVICE_NAME))).publish(counts);
}

function requireAdapter<T>(value: T | undefined, what: string, id: string): T {
  if (value === undefined) throw new Error(`${id} has no ${what}; its route table entry does not declare one`);
  return value;
}

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

/** Thrown when a handler's result breaks its response schema: a bug, answered as a 500. */
export class ResponseShapeError extends Error {
  override readonly name = 'ResponseShapeError';
}

/** The result as the response schema shapes it; the paths (never values) name what broke. */
function shape(result: unknown, spec: ResponseSpec | undefined, id: string): unknown {
  if (!spec) return result;
  const body = result instanceof Reply ? result.body : result;
  const shaped = shapeResponse(spec.shape, body);
  if (!shaped.ok) throw new ResponseShapeError(`${id}: the result does not match the response schema at ${shaped.paths.join(', ')}`);
  return result instanceof Reply ? new Reply(shaped.value, result.headers) : shaped.value;
}

/**
 * Wraps a domain function into a Lambda handler for its route: JSON body parsing, zod validation
 * of body, query and path, the authorizer's caller, JSON responses with the security headers,
 * and error mapping last. Handlers return plain data and throw domain errors; nothing else.
 */
export function endpoint<
  B extends z.$ZodType | undefined = undefined,
  Q extends z.$ZodType | undefined = undefined,
  P extends z.$ZodType | undefined = undefined,
  R extends ResponseSpec | undefined = undefined,
>(id: RouteId, definition: EndpointDefinition<B, Q, P, R>): ProxyHandler {
  const route = findRoute(id);
  if (
    route.sender !== Boolean(definition.adapters?.codeSender) ||
    route.secret !== Boolean(definition.adapters?.secrets) ||
    (route.table !== 'none') !== Boolean(definition.adapters?.database)
  ) {
    throw new Error(`${id}: the adapters of the handler do not match its route table entry`);
  }

  // Built once per container, like the SDK clients: a new secret source per call would miss the
  // key cache below and read Secrets Manager again on every use.
  let senderFromAdapter: CodeSender | undefined;
  let secretsFromAdapter: SecretSource | undefined;
  // Module state lives as long as the container: its first invocation is the cold start.
  let coldStart = true;
  const serviceContext = (log: Logger, metrics: InvocationMetrics): ServiceContext => {
    const cfg = config();
    const overrides = portOverrides();
    return {
      config: cfg,
      clock: overrides.clock ?? systemClock,
      get db() {
        return requireAdapter(definition.adapters?.database, 'database', id)(cfg);
      },
      keys() {
        const source = overrides.secrets ?? (secretsFromAdapter ??= requireAdapter(definition.adapters?.secrets, 'secret', id)(cfg));
        let keys = keysBySource.get(source);
        if (!keys) keysBySource.set(source, (keys = cachedKeys(source, cfg.KEYS_MAX_AGE_SECONDS * 1000)));
        return keys();
      },
      get codeSender() {
        return overrides.codeSender ?? (senderFromAdapter ??= requireAdapter(definition.adapters?.codeSender, 'code sender', id)(cfg));
      },
      log,
      metrics,
    };
  };

  const base = async (event: APIGatewayProxyEvent, context: Context & { state?: State }) => {
    const { input, log, metrics } = context.state!;
    const ctx = serviceContext(log, metrics);
    // Results are JSON objects (every response schema is one), which is what a replay stores.
    const run = (remember: Remember<object>) => {
      input.remember = remember as Remember<unknown>;
      return definition.run(input as RunInput<B, Q, P, R>, ctx) as Promise<object>;
    };
    return definition.idempotency ? definition.idempotency(ctx, input, run) : run(rememberNothing);
  };

  const handler = middy<APIGatewayProxyEvent, unknown, Error, Context & { state?: State }>(base).use({
    before: async (request) => {
      const cfg = config();
      const event = request.event;
      const requestId = event.requestContext?.requestId ?? request.context.awsRequestId;
      const logging = { serviceName: cfg.SERVICE_NAME, debugSampleRate: cfg.LOG_DEBUG_SAMPLE_RATE };
      if (onLambda) startInvocationLogging(cfg.LOG_LEVEL, logging, request.context, requestId);
      const log = createLogger(cfg.LOG_LEVEL, { requestId, route: routeId(route) }, logging);
      const metrics = new InvocationMetrics();
      if (coldStart) {
        coldStart = false;
        metrics.count('ColdStart');
      }
      // Set before validation: a refused request still publishes the cold start.
      request.context.state = { log, metrics, startedAt: performance.now() } as State;
      const now = (portOverrides().clock ?? systemClock).now();
      const body =
        definition.body && !(definition.bodyOptional && hasNoBody(event)) ? validatePart('body', definition.body, parseJsonBody(event)) : undefined;
      const query = definition.query ? validatePart('query', definition.query, event.queryStringParameters ?? {}) : undefined;
      const params = definition.params ? validatePart('path', definition.params, event.pathParameters ?? {}) : undefined;
      // Read once: a Bearer route without a valid caller context is refused before the handler runs.
      const caller = route.auth === 'bearer' ? callerFrom(event, now) : undefined;
      const input = {
        body,
        query,
        params,
        headers: event.headers ?? {},
        remember: rememberNothing,
        get caller(): Caller {
          if (!caller) throw new UnauthorizedError('Unauthorized');
          return caller;
        },
      };
      request.context.state.input = input;
    },
    after: async (request) => {
      // A result that breaks its schema throws here, and onError answers it as a 500.
      request.response = resultToResponse(shape(request.response, definition.response, id), request.event, config());
      logRequest(request.context.state, request.response.statusCode);
      publishMetrics(request.context.state?.metrics);
    },
    onError: async (request) => {
      const state = request.context.state;
      const cfg = config();
      const log = state?.log ?? createLogger(cfg.LOG_LEVEL, { route: routeId(route) }, { serviceName: cfg.SERVICE_NAME });
      request.response = errorToResult(request.error, request.event, config(), log);
      logRequest(state ?? { log, startedAt: performance.now() }, request.response.statusCode);
      publishMetrics(state?.metrics);
    },
  });

  // On Lambda, parse the settings and create clients during init: a bad setting fails the
  // deployment's first cold start loudly, and the init phase runs at full CPU.
  if (onLambda) {
    const cfg = config();
    definition.adapters?.database?.(cfg);
  }

  return Object.assign(handler as unknown as ProxyHandler, { route, definition: definition as ProxyHandler['definition'] });
}
