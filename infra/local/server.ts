import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
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
import type { ProviderSecrets } from '../../shared/ports/provider-secrets';
import type { SpeechKeys } from '../../shared/ports/speech';
import { speechProviders } from '../../shared/adapters/speech/index';
import { CODE_PATH_PREFIX, authorizer, jobs, routes, versionedPaths } from '../../shared/routes';
import type { JobDefinition, RouteDefinition } from '../../shared/routes';
import { DOCS_SECURITY_HEADERS, docsSiteFiles } from '../tools/docs-site';
import type { DocsFile } from '../tools/docs-site';
import { PROJECT_ROOT } from '../project-root';
import { DevMetrics } from './dev-metrics';
import { attachRealtime } from './realtime-server';
import { pushSender } from '../../shared/adapters/push/push-sender';
import type { PushKeys } from '../../shared/ports/push';
import type { LocalRealtime } from './realtime-server';
import type { DevOutbox } from './dev-outbox';
import { DEFAULT_LOCAL_ADMIN_CREDENTIALS, checkSignature } from './sigv4-check';
import type { LocalAdminCredentials } from './sigv4-check';

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
  /** Apple's private key and WeChat's app secrets (APPLE_PRIVATE_KEY, WECHAT_APP_SECRETS locally; shared/ports/provider-secrets.ts). */
  providerSecrets?: ProviderSecrets;
  /** The speech providers' keys (AZURE_SPEECH_KEY ... locally; shared/ports/speech.ts). */
  speechKeys?: SpeechKeys;
  /**
   * The silent push's keys (APNS_PRIVATE_KEY, FCM_SERVICE_ACCOUNT locally; shared/ports/push.ts):
   * with either, the live channel's fan-out pushes to closed apps (docs/realtime.md#the-silent-push).
   */
  pushKeys?: PushKeys;
  /** Ports in place of the dev outbox and the root secret (tests of AWS adapters and faults). */
  ports?: { codeSender?: CodeSender; secrets?: SecretSource };
  /**
   * The credentials `/admin` requests must be signed with (SigV4, service `execute-api`, region
   * `AWS_REGION`): LOCAL_ADMIN_ACCESS_KEY_ID and LOCAL_ADMIN_SECRET_ACCESS_KEY, else the defaults.
   */
  adminCredentials?: LocalAdminCredentials;
  /**
   * Where the routes', the authorizer's and the jobs' handlers come from: the source modules,
   * serving the server's context (`npm start`), unless given; `npm run start:deployed` gives the
   * deployed bundles run as Lambda runs them (infra/local/deployed.ts).
   */
  functions?: FunctionSource;
}

export interface LocalServer {
  url: string;
  port: number;
  server: Server;
  metrics: DevMetrics;
  /** The context the handlers and the authorizer serve (its DynamoDB client, for fault tests). */
  context: AppContext;
  /** The live channel's WebSocket endpoint at /realtime (infra/local/realtime-server.ts). */
  realtime: LocalRealtime;
  /** Runs a job of the route table once, as its schedule would, and gives what it returned. */
  runJob(name: string): Promise<unknown>;
  close(): Promise<void>;
}

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
export type AuthorizerHandler = (event: APIGatewayTokenAuthorizerEvent, context: Context) => Promise<APIGatewayAuthorizerResult>;
export type JobHandler = (event: unknown, context: Context) => Promise<unknown>;
/** What a function module exports: its handler, which serves the context it is given. */
interface HandlerModule<T> {
  withContext(context: AppContext): T;
}

/** The handlers the server calls, by route table entry; `context` is the server's own (its clock, its ports). */
export interface FunctionSource {
  route(route: RouteDefinition, context: AppContext): Promise<ProxyHandler>;
  authorizer(context: AppContext): Promise<AuthorizerHandler>;
  job(job: JobDefinition, context: AppContext): Promise<JobHandler>;
}

interface MountedRoute {
  route: RouteDefinition;
  resource: string;
  parameterNames: string[];
  handler: ProxyHandler;
}

/** A resource path and the methods it has, as API Gateway's resource tree holds them. */
interface MountedResource {
  resource: string;
  methods: Map<string, MountedRoute>;
}

/**
 * How API Gateway picks the resource of a path: segment by segment, a literal segment before a
 * `{parameter}` in the same place (`/transcriptions/usage` before `/transcriptions/{id}`),
 * whatever the order of the routes. Returns the resource's index in `resources` and the
 * parameter values, or undefined when none matches.
 */
export function matchResource(resources: readonly string[], path: string): { index: number; values: string[] } | undefined {
  const segments = path.split('/');
  let best: { index: number; values: string[]; literals: boolean[] } | undefined;
  resources.forEach((resource, index) => {
    const parts = resource.split('/');
    if (parts.length !== segments.length) return;
    const values: string[] = [];
    const literals: boolean[] = [];
    for (let at = 0; at < parts.length; at++) {
      const part = parts[at]!;
      const isParameter = /^\{\w+\}$/.test(part);
      if (isParameter) {
        // A parameter matches one non-empty segment, as API Gateway's.
        if (segments[at] === '') return;
        values.push(segments[at]!);
      } else if (part !== segments[at]) return;
      literals.push(!isParameter);
    }
    // The first segment where they differ decides: the literal wins.
    const better = !best || literals.find((literal, at) => literal !== best!.literals[at]) === true;
    if (better) best = { index, values, literals };
  });
  return best && { index: best.index, values: best.values };
}

/**
 * `X-Dev-Now: <ISO 8601 time>` runs one request as if at that time (local mode only, like /dev):
 * `npm run seed` uses it to give the demo account a month of history through the real API. The
 * request's clock starts there and ticks on; other requests keep the server's clock.
 */
export const DEV_NOW_HEADER = 'X-Dev-Now';
const requestClockOffset = new AsyncLocalStorage<number>();
/** How much of a refused body is read and dropped before the connection is cut (API Gateway takes 10 MB). */
const DRAIN_LIMIT_BYTES = 32 * 1024 * 1024;
/** Request line and headers together, at most (Node's `maxHeaderSize`; see createServer below). */
const MAX_HEADER_BYTES = 32 * 1024;
/** Node's refusals before a request reaches a route, as JSON envelopes (by Node's error code). */
const CLIENT_ERRORS: Record<string, { status: number; body: { code: number; message: string; error: string } }> = {
  HPE_HEADER_OVERFLOW: { status: 431, body: { code: 431, message: 'Request header fields too large', error: 'REQUEST_HEADER_FIELDS_TOO_LARGE' } },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, body: { code: 408, message: 'Request timeout', error: 'REQUEST_TIMEOUT' } },
};
/** A method the resource lacks, locally; API Gateway answers MISSING_AUTHENTICATION_TOKEN (404) there. */
const METHOD_NOT_ALLOWED = { status: 405, body: { code: 405, message: 'Method not allowed', error: 'METHOD_NOT_ALLOWED' } };
const STAGE = 'local';
const API_ID = 'localapi';
const ACCOUNT = '000000000000';

async function loadModule<T>(entry: string): Promise<T> {
  const module = (await import(pathToFileURL(join(PROJECT_ROOT, entry)).href)) as { handler: T };
  return module.handler;
}

/** `npm start`'s handlers: the source modules, each serving the server's context. */
export const sourceModules: FunctionSource = {
  route: async (route, context) => (await loadModule<HandlerModule<ProxyHandler>>(route.entry)).withContext(context),
  authorizer: async (context) => (await loadModule<HandlerModule<AuthorizerHandler>>(authorizer.entry)).withContext(context),
  job: async (job, context) => (await loadModule<HandlerModule<JobHandler>>(job.entry)).withContext(context),
};

/**
 * A route's handler, made on the route's first request, as Lambda starts a function on its first
 * invocation: a server (each test file starts one) loads only the functions it serves, which
 * saves most of a second of CPU per file. Requests that arrive together share the one start.
 */
function onFirstRequest(start: () => Promise<ProxyHandler>): ProxyHandler {
  let starting: Promise<ProxyHandler> | undefined;
  return async (event, lambdaContext) => (await (starting ??= start()))(event, lambdaContext);
}

const parameterNamesOf = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);

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
async function scheduleJobs(handlers: ReadonlyMap<JobDefinition, JobHandler>, cfg: Config): Promise<() => Promise<void>> {
  if (cfg.LOCAL_JOB_INTERVAL_SECONDS === 0) return async () => undefined;
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<void>>();
  for (const [job, handler] of handlers) {
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
 * Reads a body up to `limit` bytes. Past it, buffering stops at once ('too-large'): the caller
 * answers, then lets the rest drain unread. 'aborted': the request ended first.
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
    secrets: () => options.ports?.secrets ?? { rootSecret: async () => options.rootSecret, providerSecrets: async () => options.providerSecrets ?? {}, speechKeys: async () => options.speechKeys ?? {}, pushKeys: async () => options.pushKeys ?? {} },
    speech: speechProviders,
    codeSender: () => options.ports?.codeSender ?? options.outbox,
  });

  const functions = options.functions ?? sourceModules;
  const resources: MountedResource[] = [];
  for (const route of routes) {
    const handler = onFirstRequest(() => functions.route(route, context));
    for (const resource of versionedPaths(route.path)) {
      let mountedResource = resources.find((candidate) => candidate.resource === resource);
      if (!mountedResource) resources.push((mountedResource = { resource, methods: new Map() }));
      mountedResource.methods.set(route.method, { route, resource, handler, parameterNames: parameterNamesOf(resource) });
    }
  }
  const resourcePaths = resources.map((resource) => resource.resource);
  const authorize = await functions.authorizer(context);
  const jobHandlers = new Map<JobDefinition, JobHandler>();
  for (const job of jobs as readonly JobDefinition[]) jobHandlers.set(job, await functions.job(job, context));
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
  const adminCredentials = options.adminCredentials ?? DEFAULT_LOCAL_ADMIN_CREDENTIALS;
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
        result = await authorize({ type: 'TOKEN', authorizationToken: header, methodArn: arn }, { awsRequestId: randomUUID(), functionName: 'local-authorizer' } as Context);
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

    const found = matchResource(resourcePaths, url.pathname);
    if (!found) return gateway(response, 'MISSING_AUTHENTICATION_TOKEN', origin, closing);
    const mount = resources[found.index]!.methods.get(method);
    if (!mount) {
      // Locally a 405 that names the methods; API Gateway answers MISSING_AUTHENTICATION_TOKEN (404 here).
      const allow = [...resources[found.index]!.methods.keys(), 'OPTIONS'].join(', ');
      const { status, body } = METHOD_NOT_ALLOWED;
      return send(response, status, { ...SECURITY_HEADERS, ...corsHeaders(cfg.CORS_ORIGINS, origin), ...closing, Allow: allow }, JSON.stringify(body));
    }
    const values = found.values;

    if (codePaths.some((prefix) => url.pathname.startsWith(prefix))) {
      const wait = codeRequests.take(request.socket.remoteAddress ?? 'unknown', options.clock.now().getTime());
      if (wait !== undefined) return gateway(response, 'THROTTLED', origin, { ...closing, 'Retry-After': String(wait) });
    }

    const arn = methodArn(method, url.pathname);
    let authorizerContext: Record<string, string> | undefined;
    let iamIdentity: Record<string, string> | undefined;
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
    // body gets the handlers' 413 and is never buffered. The rest of it is read and dropped, so
    // the client, still sending, reads the 413 instead of a broken pipe (a signed-in client only:
    // the token was checked first; the request timeout bounds how long it may go on).
    const body = await readBody(request, MAX_BODY_BYTES);
    if (body === 'aborted') return;
    if (body === 'too-large') {
      const refused = errorResponse(bodyTooLarge(), undefined);
      send(response, refused.status, { ...SECURITY_HEADERS, ...corsHeaders(cfg.CORS_ORIGINS, origin) }, JSON.stringify(refused.body));
      let drained = 0;
      request.on('data', (chunk: Buffer) => {
        drained += chunk.length;
        // Past what any client of a 10 MB gateway would send: this one is not stopping.
        if (drained > DRAIN_LIMIT_BYTES) request.socket.destroy();
      });
      request.resume();
      return;
    }

    // AWS_IAM, as API Gateway checks it: the signature covers the body, so it is read first (capped above).
    if (mount.route.auth === 'iam') {
      const signedHeaders: Record<string, string> = {};
      for (let index = 0; index < request.rawHeaders.length; index += 2) {
        const name = request.rawHeaders[index]!.toLowerCase();
        const value = request.rawHeaders[index + 1]!.trim();
        signedHeaders[name] = signedHeaders[name] === undefined ? value : `${signedHeaders[name]},${value}`;
      }
      const signedQuery: Record<string, string | string[]> = {};
      for (const [name, value] of url.searchParams) {
        const known = signedQuery[name];
        signedQuery[name] = known === undefined ? value : [...[known].flat(), value];
      }
      const check = await checkSignature(
        { method, path: url.pathname, query: signedQuery, headers: signedHeaders, body },
        adminCredentials,
        cfg.AWS_REGION,
        options.clock.now(),
      );
      if (!check.ok) return gateway(response, check.reason === 'stale' ? 'INVALID_SIGNATURE' : check.reason === 'mismatch' ? 'INVALID_SIGNATURE' : 'INCOMPLETE_SIGNATURE', origin);
      iamIdentity = { userArn: check.actorArn, caller: check.actorArn, accountId: ACCOUNT, accessKey: adminCredentials.accessKeyId };
    }

    // Collected in Maps, then made objects with own properties only, as the JSON of a Lambda
    // event is: a header or query parameter named `constructor`, `toString` or `__proto__` is
    // just a name (a plain object would hand it Object.prototype's members, or a new prototype).
    const headerValues = new Map<string, string[]>();
    for (let index = 0; index < request.rawHeaders.length; index += 2) {
      const name = request.rawHeaders[index]!;
      headerValues.set(name, [...(headerValues.get(name) ?? []), request.rawHeaders[index + 1]!]);
    }
    const queryValues = new Map<string, string[]>();
    for (const [name, value] of url.searchParams) queryValues.set(name, [...(queryValues.get(name) ?? []), value]);
    const last = (values: string[]) => values[values.length - 1]!;
    const headers = Object.fromEntries([...headerValues].map(([name, values]) => [name, last(values)]));
    const multiValueHeaders = Object.fromEntries(headerValues);
    const query = Object.fromEntries([...queryValues].map(([name, values]) => [name, last(values)]));
    const multiQuery = Object.fromEntries(queryValues);
    const pathParameters = Object.fromEntries(
      mount.parameterNames.map((name, index) => {
        try {
          return [name, decodeURIComponent(values[index]!)];
        } catch {
          return [name, values[index]!];
        }
      }),
    );
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
        identity: { sourceIp: request.socket.remoteAddress ?? '127.0.0.1', userAgent: request.headers['user-agent'] ?? null, ...iamIdentity },
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
  // Headers up to 32 KB: a cursor of the documented 2 048 characters fits percent-encoded, whatever
  // its characters (Node's default, 16 KB, refused a 1 340-emoji one before any route saw it).
  const server = createServer({ connectionsCheckingInterval: checkEvery, maxHeaderSize: MAX_HEADER_BYTES }, (request, response) => {
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
  // A request Node refuses before any route sees it (headers too large, a timeout, bad HTTP)
  // gets the JSON envelope too: Node's own answers have an empty body.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (error.code === 'ECONNRESET' || !socket.writable || started) {
      socket.destroy();
      return;
    }
    const refusal = CLIENT_ERRORS[error.code ?? ''] ?? GATEWAY_RESPONSES.DEFAULT_4XX;
    const body = JSON.stringify(refusal.body);
    const headers = { ...SECURITY_HEADERS, ...corsHeaders(cfg.CORS_ORIGINS, undefined), 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' };
    const head = [`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  });
  server.keepAliveTimeout = 5_000;
  // Slow headers, slow bodies and idle sockets end; no more than so many connections at once.
  server.headersTimeout = cfg.LOCAL_HEADERS_TIMEOUT_MS;
  server.requestTimeout = cfg.LOCAL_REQUEST_TIMEOUT_MS;
  server.timeout = cfg.LOCAL_IDLE_TIMEOUT_MS;
  server.maxConnections = cfg.LOCAL_MAX_CONNECTIONS;
  // The live channel on the same port, as API Gateway's WebSocket API beside the REST API.
  // With push keys, its fan-out also wakes closed apps through APNs and FCM (their stand-ins under npm start).
  const pushKeys = options.pushKeys;
  const realtime = attachRealtime(
    server,
    context,
    pushKeys && (pushKeys.apnsPrivateKey || pushKeys.fcmServiceAccount)
      ? pushSender(cfg, async () => pushKeys, (platform, reason) => context.logging.logger().warn('a push was not taken', { platform, reason }))
      : undefined,
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const stopJobs = await scheduleJobs(jobHandlers, cfg);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://localhost:${port}`,
    port,
    server,
    metrics,
    context,
    realtime,
    runJob: async (name) => {
      const job = [...jobHandlers.keys()].find((candidate) => candidate.name === name);
      if (!job) throw new Error(`No job ${name} in the route table`);
      const id = randomUUID();
      return jobHandlers.get(job)!({ source: 'local.run', 'detail-type': 'Scheduled Event', id }, jobContext(id, `local-${job.name}`, job.timeoutSeconds * 1000));
    },
    close: async () => {
      await stopJobs();
      await realtime.close();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
