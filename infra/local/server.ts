import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import { CODE_RATE_WINDOW_SECONDS } from '../../shared/config';
import type { Config } from '../../shared/config';
import { createContext } from '../../shared/context';
import type { AppContext } from '../../shared/context';
import { database } from '../../shared/db/client';
import { CORS_ALLOWED_HEADERS, SECURITY_HEADERS, corsHeaders } from '../../shared/http/headers';
import { errorResponse } from '../../shared/http/error-map';
import { AUTHORIZATION_HEADER_PATTERN, GATEWAY_RESPONSES } from '../../shared/http/gateway-responses';
import { MAX_BODY_BYTES, bodyTooLarge } from '../../shared/http/request';
import type { GatewayResponse, GatewayResponseType } from '../../shared/http/gateway-responses';
import { parseTarget } from '../../shared/identity/phone-targets';
import type { LogSink } from '../../shared/logging/logger';
import type { Clock } from '../../shared/ports/clock';
import type { CodeSender } from '../../shared/ports/code-sender';
import type { SecretSource } from '../../shared/ports/secrets';
import { CODE_PATH_PREFIX, authorizer, jobs, routes, versionedPaths } from '../../shared/routes';
import type { JobDefinition, RouteDefinition } from '../../shared/routes';
import { DOCS_SECURITY_HEADERS, docsSiteFiles } from '../tools/docs-site';
import type { DocsFile } from '../tools/docs-site';
import { PROJECT_ROOT } from '../project-root';
import { DevMetrics } from './dev-metrics';
import type { DevOutbox } from './dev-outbox';

/**
 * Local mode: one Node process that plays API Gateway in front of the real handler modules.
 * It mounts the route table (with the /api/v1 aliases), runs the real TOKEN authorizer with a
 * result cache like API Gateway's, builds REST proxy events from HTTP requests, and answers with
 * the same gateway responses the stack configures. Differences from AWS are listed in the README.
 */
export interface LocalServerOptions {
  config: Config;
  clock: Clock;
  rootSecret: string;
  outbox: DevOutbox;
  port: number;
  host?: string;
  /** The business metrics summary served at /dev/metrics; a new one if not given. */
  metrics?: DevMetrics;
  /** Where the handlers' log lines go; stdout if not given. */
  logSink?: LogSink;
  /** Ports in place of the dev outbox and the root secret (tests of AWS adapters and faults). */
  ports?: { codeSender?: CodeSender; secrets?: SecretSource };
}

export interface LocalServer {
  url: string;
  port: number;
  server: Server;
  metrics: DevMetrics;
  /** The context the handlers and the authorizer serve (its DynamoDB client, for fault tests). */
  context: AppContext;
  close(): Promise<void>;
}

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type AuthorizerHandler = (event: APIGatewayTokenAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;
type JobHandler = (event: unknown, context: Context) => Promise<unknown>;
/** What a function module exports: its handler, which serves the context it is given. */
interface HandlerModule<T> {
  withContext(context: AppContext): T;
}

interface MountedRoute {
  route: RouteDefinition;
  resource: string;
  pattern: RegExp;
  parameterNames: string[];
  handler: ProxyHandler;
}

/**
 * API Gateway matches a literal path segment before a `{parameter}` in the same place
 * (`/transcriptions/usage` before `/transcriptions/{id}`), whatever the order of the routes. The
 * local server takes the first match, so it tries its routes in that order (stable otherwise).
 */
export function literalSegmentsFirst(a: string, b: string): number {
  const left = a.split('/');
  const right = b.split('/');
  for (let index = 0; index < Math.min(left.length, right.length); index++) {
    const leftIsParameter = left[index]!.startsWith('{');
    if (leftIsParameter !== right[index]!.startsWith('{')) return leftIsParameter ? 1 : -1;
  }
  return 0;
}

/**
 * `X-Dev-Now: <ISO 8601 time>` runs one request as if at that time (local mode only, like /dev):
 * `npm run seed` uses it to give the demo account a month of history through the real API. The
 * request's clock starts there and ticks on; other requests keep the server's clock.
 */
export const DEV_NOW_HEADER = 'X-Dev-Now';
const requestClockOffset = new AsyncLocalStorage<number>();
const STAGE = 'local';
const API_ID = 'localapi';
const ACCOUNT = '000000000000';

async function loadModule<T>(entry: string): Promise<T> {
  const module = (await import(pathToFileURL(join(PROJECT_ROOT, entry)).href)) as { handler: T };
  return module.handler;
}

function compile(path: string): { pattern: RegExp; parameterNames: string[] } {
  const parameterNames: string[] = [];
  const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{(\w+)\\?\}/g, (_match, name: string) => {
    parameterNames.push(name);
    return '([^/]+)';
  });
  return { pattern: new RegExp(`^${source}$`), parameterNames };
}

/**
 * The Lambda context of one run of a job: its request id, and the time left before the job's
 * timeout, counted down as on Lambda (a purge run stops by it and the next run goes on).
 */
function jobContext(requestId: string, functionName: string, timeoutMs: number): Context {
  const deadline = performance.now() + timeoutMs;
  return { awsRequestId: requestId, functionName, getRemainingTimeInMillis: () => Math.max(0, Math.floor(deadline - performance.now())) } as Context;
}

const RATE_UNITS_MS: Record<string, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** The interval of an EventBridge `rate(…)` expression in ms; undefined for a `cron(…)` one. */
export function rateIntervalMs(schedule: string): number | undefined {
  const rate = /^rate\((\d+) (minute|hour|day)s?\)$/.exec(schedule);
  return rate ? Number(rate[1]) * RATE_UNITS_MS[rate[2]!]! : undefined;
}

/**
 * What EventBridge does on AWS: runs every job of the route table on its schedule, or every
 * `LOCAL_JOB_INTERVAL_SECONDS` when that is sooner (a cut-short purge then finishes within a
 * minute locally). A run never overlaps the previous run of the same job; a failed run is logged
 * and the next one tries again, as EventBridge's retries would.
 */
async function scheduleJobs(context: AppContext, cfg: Config): Promise<() => Promise<void>> {
  if (cfg.LOCAL_JOB_INTERVAL_SECONDS === 0) return async () => undefined;
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<void>>();
  for (const job of jobs as readonly JobDefinition[]) {
    const handler = (await loadModule<HandlerModule<JobHandler>>(job.entry)).withContext(context);
    const everyMs = Math.min(rateIntervalMs(job.schedule) ?? Infinity, cfg.LOCAL_JOB_INTERVAL_SECONDS * 1000);
    let current: Promise<void> | undefined;
    const run = () => {
      if (current) return;
      const id = randomUUID();
      current = handler({ source: 'local.scheduler', 'detail-type': 'Scheduled Event', id }, jobContext(id, `local-${job.name}`, job.timeoutSeconds * 1000))
        .then(
          () => undefined,
          (error: unknown) => console.error(`job ${job.name} failed; the next run tries again`, error),
        )
        .finally(() => {
          running.delete(current!);
          current = undefined;
        });
      running.add(current);
    };
    const timer = setInterval(run, everyMs);
    // The schedule alone never keeps a process alive.
    timer.unref();
    timers.push(timer);
  }
  return async () => {
    for (const timer of timers) clearInterval(timer);
    await Promise.all(running);
  };
}

const methodArn = (method: string, path: string) => `arn:aws:execute-api:local:${ACCOUNT}:${API_ID}/${STAGE}/${method}${path}`;

/** IAM-style wildcard match of a policy resource against the method ARN. */
function resourceMatches(resource: string, arn: string): boolean {
  const pattern = resource.replace(/[.+^$()|[\]\\{}]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${pattern}$`).test(arn);
}

function policyAllows(result: APIGatewayAuthorizerResult, arn: string): boolean {
  const statements = result.policyDocument?.Statement ?? [];
  const applies = (statement: (typeof statements)[number]) => {
    const resources = 'Resource' in statement ? [statement.Resource].flat() : [];
    return resources.some((resource) => typeof resource === 'string' && resourceMatches(resource, arn));
  };
  if (statements.some((statement) => statement.Effect === 'Deny' && applies(statement))) return false;
  return statements.some((statement) => statement.Effect === 'Allow' && applies(statement));
}

/**
 * Reads a body up to `limit` bytes. Past it, reading stops at once ('too-large'): the rest is never
 * buffered, and the caller answers and closes the connection. 'aborted': the request ended first.
 */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer | 'too-large' | 'aborted'> {
  return new Promise((resolve) => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      resolve('too-large');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.off('data', onData);
        request.pause();
        resolve('too-large');
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.on('end', () => resolve(Buffer.concat(chunks)));
    // The client went away, or the request timeout ended it: nobody is left to answer.
    request.on('error', () => resolve('aborted'));
  });
}

/**
 * The per-client limit on the code endpoints that WAF applies on AWS: at most `limit` requests per
 * client address in a 5-minute window (fixed windows, as WAF's count is over a trailing one).
 */
class CodeRequestLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs = CODE_RATE_WINDOW_SECONDS * 1000,
  ) {}

  /** Counts one request; undefined if it may go on, else the seconds until the window ends. */
  take(client: string, now: number): number | undefined {
    if (this.windows.size > 10_000) for (const [key, window] of this.windows) if (now - window.start >= this.windowMs) this.windows.delete(key);
    let window = this.windows.get(client);
    if (!window || now - window.start >= this.windowMs) this.windows.set(client, (window = { start: now, count: 0 }));
    window.count++;
    if (window.count <= this.limit) return undefined;
    return Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000));
  }
}

export async function startLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  const metrics = options.metrics ?? new DevMetrics();
  const cfg = options.config;
  // The server's own context: the functions' code with local ports (the dev outbox, the root
  // secret from the options, /dev/metrics), and a clock X-Dev-Now can move for one request.
  const context = createContext({
    config: cfg,
    clock: { now: () => new Date(options.clock.now().getTime() + (requestClockOffset.getStore() ?? 0)) },
    logSink: options.logSink,
    metrics: () => metrics,
    database,
    secrets: () => options.ports?.secrets ?? { rootSecret: async () => options.rootSecret },
    codeSender: () => options.ports?.codeSender ?? options.outbox,
  });

  const mounted: MountedRoute[] = [];
  for (const route of routes) {
    const handler = (await loadModule<HandlerModule<ProxyHandler>>(route.entry)).withContext(context);
    for (const resource of versionedPaths(route.path)) mounted.push({ route, resource, handler, ...compile(resource) });
  }
  mounted.sort((a, b) => literalSegmentsFirst(a.resource, b.resource));
  const authorize = (await loadModule<HandlerModule<AuthorizerHandler>>(authorizer.entry)).withContext(context);
  /** The API reference page (GET /docs/), read on its first request. Local mode only, like /dev. */
  let docs: Map<string, DocsFile> | undefined;
  /** API Gateway caches an authorizer's policy per identity source value for the configured TTL. */
  const authorizerCache = new Map<string, { result: APIGatewayAuthorizerResult; until: number }>();

  const send = (response: ServerResponse, status: number, headers: Record<string, string | string[]>, body: string) => {
    response.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(body) });
    response.end(body);
  };
  const gateway = (response: ServerResponse, type: GatewayResponseType, origin: string | undefined, extra: Record<string, string> = {}) => {
    const { status, body, headers }: GatewayResponse = GATEWAY_RESPONSES[type];
    send(response, status, { ...SECURITY_HEADERS, ...corsHeaders(cfg.CORS_ORIGINS, origin), ...headers, ...extra }, JSON.stringify(body));
  };
  const codeRequests = new CodeRequestLimiter(cfg.LOCAL_CODE_REQUESTS_PER_5_MINUTES);
  const codePaths = versionedPaths(CODE_PATH_PREFIX);
  /** An answer given before the body was read: the connection closes, so the rest is never read. */
  const closing = { Connection: 'close' };

  async function authorizeRequest(header: string | undefined, arn: string): Promise<APIGatewayAuthorizerResult | GatewayResponseType> {
    // Like API Gateway: a missing header or one failing the validation pattern never reaches the function.
    if (!header || !new RegExp(AUTHORIZATION_HEADER_PATTERN).test(header)) return 'UNAUTHORIZED';
    const cached = authorizerCache.get(header);
    let result = cached && cached.until > Date.now() ? cached.result : undefined;
    if (!result) {
      try {
        result = await authorize({ type: 'TOKEN', authorizationToken: header, methodArn: arn });
      } catch (error) {
        // As API Gateway: any other failure of the authorizer is AUTHORIZER_FAILURE.
        return (error as Error).message === 'Unauthorized' ? 'UNAUTHORIZED' : 'AUTHORIZER_FAILURE';
      }
      if (cfg.AUTHORIZER_CACHE_SECONDS > 0) {
        authorizerCache.set(header, { result, until: Date.now() + cfg.AUTHORIZER_CACHE_SECONDS * 1000 });
      }
    }
    return policyAllows(result, arn) ? result : 'ACCESS_DENIED';
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const method = (request.method ?? 'GET').toUpperCase();
    const origin = request.headers.origin;

    if (method === 'OPTIONS') {
      send(response, 204, {
        ...corsHeaders(cfg.CORS_ORIGINS, origin),
        'Access-Control-Allow-Methods': 'GET,POST,PUT,PATCH,DELETE,OPTIONS',
        'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS,
        'Access-Control-Max-Age': '600',
      }, '');
      return;
    }
    if (method === 'GET' && url.pathname === '/dev/outbox') {
      const raw = url.searchParams.get('target') ?? undefined;
      const target = raw === undefined ? undefined : (parseTarget(raw)?.value ?? raw);
      send(response, 200, { ...SECURITY_HEADERS, ...corsHeaders(cfg.CORS_ORIGINS, origin) }, JSON.stringify(options.outbox.list(target)));
      return;
    }
    if (method === 'GET' && url.pathname === '/dev/metrics') {
      send(response, 200, { ...SECURITY_HEADERS, ...corsHeaders(cfg.CORS_ORIGINS, origin) }, JSON.stringify(metrics.summary()));
      return;
    }

    if (method === 'GET' && url.pathname === '/docs') {
      // The page loads its assets relative to itself, so it lives at /docs/.
      send(response, 301, { Location: '/docs/' }, '');
      return;
    }
    if (method === 'GET' && url.pathname.startsWith('/docs/')) {
      docs ??= docsSiteFiles('/api/openapi.json');
      const file = docs.get(url.pathname.slice('/docs/'.length) || 'index.html');
      if (!file) return gateway(response, 'MISSING_AUTHENTICATION_TOKEN', origin);
      response.writeHead(200, { ...DOCS_SECURITY_HEADERS, 'Content-Type': file.contentType, 'Content-Length': file.body.length });
      response.end(file.body);
      return;
    }

    let match: { mount: MountedRoute; values: string[] } | undefined;
    for (const mount of mounted) {
      const values = mount.pattern.exec(url.pathname);
      if (values && mount.route.method === method) {
        match = { mount, values: values.slice(1) };
        break;
      }
    }
    if (!match) return gateway(response, 'MISSING_AUTHENTICATION_TOKEN', origin, closing);

    if (codePaths.some((prefix) => url.pathname.startsWith(prefix))) {
      const wait = codeRequests.take(request.socket.remoteAddress ?? 'unknown', options.clock.now().getTime());
      if (wait !== undefined) return gateway(response, 'THROTTLED', origin, { ...closing, 'Retry-After': String(wait) });
    }

    const { mount, values } = match;
    const arn = methodArn(method, url.pathname);
    let authorizerContext: Record<string, string> | undefined;
    // The token before the body: an unauthenticated client cannot make the server hold its body.
    if (mount.route.auth === 'bearer') {
      const header = request.headers.authorization;
      const decision = await authorizeRequest(header, arn);
      if (typeof decision === 'string') return gateway(response, decision, origin, closing);
      // API Gateway hands the authorizer's context to the integration with every value as a string.
      authorizerContext = {
        principalId: decision.principalId,
        ...Object.fromEntries(Object.entries(decision.context ?? {}).map(([key, value]) => [key, String(value)])),
      };
    }

    // Capped while it streams in, at the handlers' own limit (API Gateway's is 10 MB): a bigger
    // body gets the handlers' 413, and no more of it is read.
    const body = await readBody(request, MAX_BODY_BYTES);
    if (body === 'aborted') return;
    if (body === 'too-large') {
      const refused = errorResponse(bodyTooLarge(), undefined);
      return send(response, refused.status, { ...SECURITY_HEADERS, ...corsHeaders(cfg.CORS_ORIGINS, origin), ...closing }, JSON.stringify(refused.body));
    }

    const headers: Record<string, string> = {};
    const multiValueHeaders: Record<string, string[]> = {};
    for (let index = 0; index < request.rawHeaders.length; index += 2) {
      const name = request.rawHeaders[index]!;
      const value = request.rawHeaders[index + 1]!;
      headers[name] = value;
      (multiValueHeaders[name] ??= []).push(value);
    }
    const query: Record<string, string> = {};
    const multiQuery: Record<string, string[]> = {};
    for (const [name, value] of url.searchParams) {
      query[name] = value;
      (multiQuery[name] ??= []).push(value);
    }
    const pathParameters: Record<string, string> = {};
    mount.parameterNames.forEach((name, index) => {
      try {
        pathParameters[name] = decodeURIComponent(values[index]!);
      } catch {
        pathParameters[name] = values[index]!;
      }
    });
    const requestId = randomUUID();
    const event = {
      resource: mount.resource,
      path: url.pathname,
      httpMethod: method,
      headers,
      multiValueHeaders,
      queryStringParameters: url.searchParams.size > 0 ? query : null,
      multiValueQueryStringParameters: url.searchParams.size > 0 ? multiQuery : null,
      pathParameters: mount.parameterNames.length > 0 ? pathParameters : null,
      stageVariables: null,
      body: body.length > 0 ? body.toString('utf8') : null,
      isBase64Encoded: false,
      requestContext: {
        accountId: ACCOUNT,
        apiId: API_ID,
        authorizer: authorizerContext,
        httpMethod: method,
        path: `/${STAGE}${url.pathname}`,
        protocol: `HTTP/${request.httpVersion}`,
        requestId,
        requestTimeEpoch: Date.now(),
        resourceId: 'local',
        resourcePath: mount.resource,
        stage: STAGE,
        identity: { sourceIp: request.socket.remoteAddress ?? '127.0.0.1', userAgent: request.headers['user-agent'] ?? null },
      },
    } as unknown as APIGatewayProxyEvent;
    // No getRemainingTimeInMillis: nothing times a local request out (middy would answer 500 at
    // it, and a loaded machine runs scrypt slowly); ACCOUNT_PURGE_BUDGET_MS bounds a deletion here.
    const context = { awsRequestId: requestId, functionName: `local-${mount.route.entry}` } as Context;

    let result: APIGatewayProxyResult;
    try {
      result = await mount.handler(event, context);
    } catch (error) {
      console.error('handler crashed', error);
      return gateway(response, 'DEFAULT_5XX', origin);
    }
    const responseHeaders: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(result.headers ?? {})) responseHeaders[name] = String(value);
    for (const [name, value] of Object.entries(result.multiValueHeaders ?? {})) responseHeaders[name] = value.map(String);
    send(response, result.statusCode, responseHeaders, result.body ?? '');
  }

  // Node checks the header and request timeouts every `connectionsCheckingInterval` (30 s unless set).
  const checkEvery = Math.min(1000, cfg.LOCAL_HEADERS_TIMEOUT_MS, cfg.LOCAL_REQUEST_TIMEOUT_MS);
  const server = createServer({ connectionsCheckingInterval: checkEvery }, (request, response) => {
    const devNow = request.headers[DEV_NOW_HEADER.toLowerCase()];
    const at = typeof devNow === 'string' ? Date.parse(devNow) : undefined;
    if (at !== undefined && !Number.isFinite(at)) return gateway(response, 'DEFAULT_4XX', request.headers.origin);
    const run = () => handle(request, response);
    (at === undefined ? run() : requestClockOffset.run(at - options.clock.now().getTime(), run)).catch((error: unknown) => {
      console.error('local server error', error);
      if (!response.headersSent) gateway(response, 'DEFAULT_5XX', request.headers.origin);
      else response.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  // Slow headers, slow bodies and idle sockets end; no more than so many connections at once.
  server.headersTimeout = cfg.LOCAL_HEADERS_TIMEOUT_MS;
  server.requestTimeout = cfg.LOCAL_REQUEST_TIMEOUT_MS;
  server.timeout = cfg.LOCAL_IDLE_TIMEOUT_MS;
  server.maxConnections = cfg.LOCAL_MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const stopJobs = await scheduleJobs(context, cfg);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://localhost:${port}`,
    port,
    server,
    metrics,
    context,
    close: async () => {
      await stopJobs();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
