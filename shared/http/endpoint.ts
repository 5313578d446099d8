import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
// Types only: request schemas are zod/mini, parsed with its functional `safeParse`. Classic zod
// would add ~90 KB to each bundle and ~9 ms to its cold import (docs/performance.md).
import type * as z from 'zod/v4/core';
import { perContainer } from '../context';
import type { AppContext } from '../context';
import { UnauthorizedError } from '../errors';
import { findRoute, routeId } from '../routes';
import type { RouteDefinition, RouteId } from '../routes';
import { powertoolsMetricSink } from '../adapters/powertools-metrics';
import { routeAdapters } from '../adapters/route-adapters';
import type { ServiceContext } from '../service-context';
import type { Remember } from '../db/transactions';
import { caller } from './middlewares/caller';
import { errorMapping } from './middlewares/error-mapping';
import type { Idempotency } from './middlewares/idempotency';
import type { Caller, EndpointMiddleware, Invocation } from './middlewares/invocation';
import { jsonBody, noBody } from './middlewares/json-body';
import { requestLog } from './middlewares/request-log';
import { response } from './middlewares/response';
import { validation } from './middlewares/validation';
import type { RequestSchemas } from './middlewares/validation';
import type { OnlyListedFields, ResponseSchemaName, Result, ResultBody } from './response-contract';

type LambdaHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export type ProxyHandler = LambdaHandler & {
  /** The same handler serving a context built by its caller (the local server, tests, the bench). */
  withContext(app: AppContext): LambdaHandler;
  route: RouteDefinition;
  /** The handler's schemas and docs, read by the OpenAPI generator (infra/tools/openapi.ts). */
  definition: EndpointDefinition<unknown, unknown, unknown, ResponseSchemaName, unknown>;
};

export type { Caller };

type Output<S> = S extends z.$ZodType ? z.output<S> : undefined;

interface EndpointInput<B, Q, P> {
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

/** Request headers an operation reads, beyond Authorization and Content-Type. */
export type DocumentedHeader = 'Idempotency-Key' | 'Accept-Language' | 'If-Match';
/** Idempotency-Key is documented for the endpoints with an `idempotency`, and only for them. */
type DeclaredHeader = Exclude<DocumentedHeader, 'Idempotency-Key'>;

/** What the API reference says of an operation beyond its route and schemas. */
export interface EndpointDocs {
  summary: string;
  description?: string;
  /**
   * The domain errors (their `error` names, declared with each class in shared/errors.ts) this operation answers
   * beyond those the generator adds from the route and schemas: validation, 401, 413, 422, 503.
   */
  errors?: readonly string[];
  headers?: readonly DeclaredHeader[];
}

export interface EndpointDefinition<B, Q, P, R = undefined, T = ResultBody<R>> {
  body?: B;
  /**
   * The body may be left out altogether (no body, or an empty one): `run` then gets `undefined`.
   * A body that is sent must still be JSON and match `body`.
   */
  bodyOptional?: boolean;
  query?: Q;
  params?: P;
  /**
   * The schema of the 200 body, by its name in shared/api/schemas.ts: for the OpenAPI document,
   * and the type of `run`'s result, which must be exactly its output (shared/http/response-contract.ts).
   * Nothing checks the result at run time: the domain's typed mappers copy the listed fields only.
   */
  response?: R;
  docs: EndpointDocs;
  /**
   * Answers 201 when it makes a resource (`run` returns a Reply with status 201) and 200 when a
   * repeat answers the one made before (with `Idempotent-Replayed: true`): both are documented.
   */
  created?: boolean;
  /** Honours Idempotency-Key: `idempotentIn(scope)` of shared/http/middlewares/idempotency.ts. */
  idempotency?: Idempotency;
  /**
   * The answer is one record with a `revision`: it carries `ETag: "<revision>"` (also when it is
   * a replay of a stored answer), which `If-Match` sends back (docs/sync.md).
   */
  etag?: boolean;
  /**
   * The audit trail of an `iam` route (set by `adminEndpoint`, shared/http/admin-endpoint.ts):
   * passed in, like `idempotency`, so that no other function bundles what it writes with.
   */
  audit?: (app: AppContext, route: RouteDefinition) => EndpointMiddleware;
  run(input: RunInput<B, Q, P, R>, ctx: ServiceContext): Promise<Result<T>>;
}

/**
 * This function's own route table entry, set by the bundler (`routeBuild` of
 * infra/bundling/options.ts) so that a bundle carries one entry rather than the whole table
 * (6.9 KB of every function, measured). Unbundled (the local server, tests) it is undefined and
 * the entry is looked up in the table.
 */
declare const BUNDLED_ROUTE: string | undefined;

const rememberNothing: Remember<unknown> = () => [];

/**
 * Wraps a domain function into a Lambda handler for its route, as a pipeline of middy middlewares
 * (shared/http/middlewares/): the request log, error mapping, the JSON response, the JSON body,
 * zod validation of body, query and path, the authorizer's caller, and Idempotency-Key where the
 * endpoint honours it. Handlers return plain data and throw domain errors; nothing else. The AWS
 * adapters come from the route table entry, never from the handler.
 */
export function endpoint<
  B extends z.$ZodType | undefined = undefined,
  Q extends z.$ZodType | undefined = undefined,
  P extends z.$ZodType | undefined = undefined,
  R extends ResponseSchemaName | undefined = undefined,
  T extends ResultBody<R> = ResultBody<R>,
>(id: RouteId, definition: EndpointDefinition<B, Q, P, R, T> & OnlyListedFields<T, ResultBody<R>>): ProxyHandler {
  const route = typeof BUNDLED_ROUTE === 'string' ? (JSON.parse(BUNDLED_ROUTE) as RouteDefinition) : findRoute(id);
  const name = routeId(route);
  if (name !== id) throw new Error(`${id}: bundled with the route of ${name}`);
  // Every admin request is audited: an `iam` route without its audit trail is a mistake, not an option.
  if ((route.auth === 'iam') !== (definition.audit !== undefined)) throw new Error(`${name}: an iam route, and only one, is built with adminEndpoint`);

  /** The handler with its middlewares, serving one context. */
  const withContext = (app: AppContext) => {
    const base = async (event: APIGatewayProxyEvent, context: Invocation) => {
      const { caller } = context;
      const input = {
        body: context.body,
        query: context.query,
        params: context.params,
        headers: event.headers ?? {},
        remember: context.remember ?? rememberNothing,
        get caller(): Caller {
          if (!caller) throw new UnauthorizedError('Unauthorized');
          return caller;
        },
      };
      const ctx: ServiceContext = {
        config: app.config,
        clock: app.clock,
        get db() {
          return app.db;
        },
        keys: () => app.keys(),
        providerSecrets: () => app.providerSecrets(),
        get codeSender() {
          return app.codeSender;
        },
        get speech() {
          return app.speech;
        },
        log: context.log!,
        metrics: context.metrics!,
        remainingTimeMs: () => (typeof context.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : Infinity),
      };
      return definition.run(input as unknown as RunInput<B, Q, P, R>, ctx);
    };
    // Before runs in this order, after and onError in the reverse one: the request log is first
    // in and last out, errors are mapped after every other middleware had its say.
    const handler = middy<APIGatewayProxyEvent, unknown, Error, Invocation>(base).use(requestLog(app, name));
    // The admin API's audit entry sees the answer as the caller gets it, refusals included.
    if (definition.audit) handler.use(definition.audit(app, route));
    handler
      .use(errorMapping(app, name))
      .use(response({ config: app.config, etag: definition.etag === true }));
    handler.use(definition.body ? jsonBody({ optional: definition.bodyOptional }) : noBody());
    handler.use(validation(definition as RequestSchemas)).use(caller({ bearer: route.auth === 'bearer', clock: app.clock }));
    if (definition.idempotency) handler.use(definition.idempotency(app));
    return handler as unknown as LambdaHandler;
  };

  // On Lambda the context is built during init, with its DynamoDB client (shared/context.ts perContainer).
  const handler = perContainer(withContext, { metrics: (cfg) => powertoolsMetricSink(cfg.SERVICE_NAME), ...routeAdapters(route) }, {
    atInit: (app) => {
      if (route.table !== 'none') void app.db;
    },
  });

  return Object.assign(handler as ProxyHandler, { route, definition: definition as ProxyHandler['definition'] });
}
