import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import { ensureTable } from '../../infra/local/create-table';
import { DevOutbox } from '../../infra/local/dev-outbox';
import { startDynamoDbLocal } from '../../infra/local/dynamodb-local';
import type { DynamoDbLocal } from '../../infra/local/dynamodb-local';
import { parseConfig } from '../../shared/config';
import { speechProviders } from '../../shared/adapters/speech/index';
import { startProviderStandIns } from '../../infra/local/provider-stand-ins';
import type { ProviderStandIns } from '../../infra/local/provider-stand-ins';
import type { Config } from '../../shared/config';
import { DYNAMODB_MAX_ATTEMPTS, database } from '../../shared/db/client';
import { createContext } from '../../shared/context';
import type { AppContext } from '../../shared/context';
import { powertoolsMetricSink } from '../../shared/adapters/powertools-metrics';
import type { MetricSink } from '../../shared/ports/metrics';
import { authorizer, routeId, routes } from '../../shared/routes';
import type { RouteDefinition } from '../../shared/routes';
import { MovableClock } from '../support/movable-clock';
import { PROJECT_ROOT } from './bundles';
import { consumedCapacityMiddleware, emptyUsage } from './consumed-capacity';
import type { DynamoUsage } from './consumed-capacity';

/**
 * The in-process side of the benchmarks: the real handler modules (as the local server loads
 * them) against DynamoDB Local, invoked with REST proxy events shaped like API Gateway's, and a
 * bare document client with the service's client settings for the floor.
 */
type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type AuthorizerHandler = (event: APIGatewayTokenAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

export interface Account {
  userId: number;
  email: string;
  token: string;
  /** The authorizer's context as API Gateway hands it to the integration: every value a string. */
  authorizer: Record<string, string>;
}

export interface RequestSpec {
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  account?: Account;
  headers?: Record<string, string>;
}

/** What a piece of work cost beyond its time: DynamoDB, log lines written, messages delivered. */
export interface WorkUsage {
  dynamo: DynamoUsage;
  /** UTF-8 bytes of the log lines the service wrote, one newline each (as Lambda forwards stdout). */
  logBytes: number;
  logLines: number;
  /** Verification messages delivered, by channel (SES for e-mail, SNS for SMS on AWS). */
  messages: { email: number; sms: number };
}

/** One `send` of the document client, as the handler issued it. */
export interface RecordedCommand {
  Command: new (input: never) => object;
  input: unknown;
  startedAt: number;
  endedAt: number;
}

export interface Bench {
  config: Config;
  clock: MovableClock;
  outbox: DevOutbox;
  bare: DynamoDBDocumentClient;
  /** The context the handlers serve (scheduled jobs run with it too). */
  app: AppContext;
  handler(route: RouteDefinition): Promise<ProxyHandler>;
  invoke(id: string, spec?: RequestSpec): Promise<APIGatewayProxyResult>;
  /** Invokes and throws unless the status is 2xx; returns the parsed body. */
  call<T = unknown>(id: string, spec?: RequestSpec): Promise<T>;
  event(route: RouteDefinition, spec?: RequestSpec): APIGatewayProxyEvent;
  context(route: RouteDefinition, event: APIGatewayProxyEvent): Context;
  /** Runs `work` and returns the document-client commands it issued, in start order. */
  record(work: () => Promise<unknown>): Promise<RecordedCommand[]>;
  /** Runs `work` and counts the HTTP requests DynamoDB received (retries included). */
  countRequests(work: () => Promise<unknown>): Promise<number>;
  /** Runs `work` and returns what it cost: DynamoDB requests and units, log bytes, messages. */
  usage(work: () => Promise<unknown>): Promise<WorkUsage>;
  signUp(label: string, password?: string): Promise<Account>;
  /** Apple, Google and WeChat stand-ins the social sign-ins are configured with (BENCH_SOCIAL_IDS). */
  standIns: ProviderStandIns;
  /** Invokes the real TOKEN authorizer with a bearer token, as API Gateway does on a cache miss. */
  authorize(token: string): Promise<APIGatewayAuthorizerResult>;
  close(): Promise<void>;
}

/** The client ids and WeChat app the bench's social sign-ins use. */
export const BENCH_SOCIAL_IDS = { appleClientId: 'com.example.bench', googleClientId: 'bench.apps.googleusercontent.com', wechatApps: { wx0000000000bench1: 'bench-secret' } };

const STAGE = 'prod';
const API_ID = 'a1b2c3d4e5';
const ACCOUNT_ID = '123456789012';
/** The signer of the /admin routes' requests (issue 37): a support person through an SSO role. */
const SUPPORT_ACTOR = `arn:aws:sts::${ACCOUNT_ID}:assumed-role/AWSReservedSSO_Support_0123456789abcdef/support@example.com`;

/**
 * One call of a handler on an event built beforehand (as API Gateway builds it before the function
 * runs), timed from hand-over to answer, in milliseconds. Any status but 200 stops the bench: the
 * time of a failing call measures nothing.
 */
export async function timeHandlerCall(run: ProxyHandler, event: APIGatewayProxyEvent, context: Context, label: string): Promise<number> {
  const started = performance.now();
  const result = await run(event, context);
  const duration = performance.now() - started;
  if (result.statusCode !== 200) throw new Error(`${label} answered ${result.statusCode}: ${result.body}`);
  return duration;
}

export const findRoute = (id: string): RouteDefinition => {
  const route = routes.find((candidate) => routeId(candidate) === id);
  if (!route) throw new Error(`No route ${id} in shared/routes.ts`);
  return route;
};

/** `/api/transcriptions/{id}` with `{id: '7'}` -> `/api/transcriptions/7`. */
const fillPath = (path: string, parameters: Record<string, string> = {}) =>
  path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = parameters[name];
    if (value === undefined) throw new Error(`${path}: no value for {${name}}`);
    return encodeURIComponent(value);
  });

function lambdaContext(route: RouteDefinition, requestId: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: `captions-${route.entry.replace(/\W+/g, '-')}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:${ACCOUNT_ID}:function:bench`,
    memoryLimitInMB: '256',
    awsRequestId: requestId,
    logGroupName: '/aws/lambda/bench',
    logStreamName: 'bench',
    // As at the start of an invocation with the stack's 10 s timeout (contexts may be built ahead).
    getRemainingTimeInMillis: () => 10_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export async function startBench(options: { dynamo?: Pick<DynamoDbLocal, 'endpoint' | 'stop'> } = {}): Promise<Bench> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const dynamo = options.dynamo ?? (await startDynamoDbLocal());
  // Apple, Google and WeChat: their stand-ins (infra/local/provider-stand-ins.ts), on the bench's clock.
  const clock = new MovableClock();
  const standIns = await startProviderStandIns({ ...BENCH_SOCIAL_IDS, now: () => clock.now().getTime() });
  const config = parseConfig({
    TABLE_NAME: `bench-${randomUUID()}`,
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    AWS_REGION: 'us-east-1',
    // As deployed: every request writes its log line. The line is built; only the write is dropped.
    LOG_LEVEL: 'info',
    APPLE_CLIENT_IDS: BENCH_SOCIAL_IDS.appleClientId,
    APPLE_TEAM_ID: standIns.apple.teamId,
    APPLE_KEY_ID: standIns.apple.keyId,
    APPLE_API_URL: standIns.appleUrl,
    GOOGLE_CLIENT_IDS: BENCH_SOCIAL_IDS.googleClientId,
    GOOGLE_JWKS_URL: standIns.googleJwksUrl,
    WECHAT_APP_IDS: Object.keys(BENCH_SOCIAL_IDS.wechatApps).join(','),
    WECHAT_API_URL: standIns.wechatUrl,
    // Speech sessions: Azure's token endpoint is the stand-in; Tencent's addresses are signed here.
    SPEECH_PROVIDERS: 'azure,tencent',
    AZURE_SPEECH_STS_URL: standIns.azureStsUrl,
    TENCENT_ASR_APP_ID: '1250000000',
  });
  await ensureTable(dynamo.endpoint, config.TABLE_NAME);
  // Lines are dropped, but counted while `usage` measures: what CloudWatch Logs would ingest.
  let logs: { bytes: number; lines: number } | undefined;
  const logSink = (line: string) => {
    if (!logs) return;
    logs.bytes += Buffer.byteLength(line) + 1;
    logs.lines++;
  };
  const outbox = new DevOutbox(clock, false);
  const rootSecret = randomBytes(32).toString('base64url');
  // As deployed: each request's business metrics are built into EMF lines by Powertools; only the
  // write to stdout is dropped, as with the log lines.
  const emf = powertoolsMetricSink(config.SERVICE_NAME);
  const metrics: MetricSink = {
    publish(counts) {
      const write = process.stdout.write;
      process.stdout.write = () => true;
      try {
        emf.publish(counts);
      } finally {
        process.stdout.write = write;
      }
    },
  };
  // The bench's own context, as the local server builds one: the functions' code with local ports.
  const app: AppContext = createContext({
    config,
    clock,
    logSink,
    metrics: () => metrics,
    database,
    secrets: () => ({
      rootSecret: async () => rootSecret,
      providerSecrets: async () => ({ applePrivateKey: standIns.apple.privateKeyPem, wechatAppSecrets: BENCH_SOCIAL_IDS.wechatApps }),
      speechKeys: async () => ({ azureSpeechKey: standIns.speech.azureKey, tencentSecretId: 'AKIDbench', tencentSecretKey: 'bench-tencent-secret' }),
    }),
    codeSender: () => outbox,
    speech: speechProviders,
  });

  // The floor: the same settings as shared/db/client.ts, without the service's own middleware.
  const bare = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: config.AWS_REGION,
      maxAttempts: DYNAMODB_MAX_ATTEMPTS,
      retryMode: 'standard',
      endpoint: config.DYNAMODB_ENDPOINT,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  const serviceClient = app.db.client;
  let dynamoUsage: DynamoUsage | undefined;
  serviceClient.middlewareStack.add(...consumedCapacityMiddleware(() => dynamoUsage));

  const handlers = new Map<string, Promise<ProxyHandler>>();
  const handler = (route: RouteDefinition) => {
    let loaded = handlers.get(route.entry);
    if (!loaded) {
      loaded = import(pathToFileURL(join(PROJECT_ROOT, route.entry)).href).then((module: { handler: { withContext(app: AppContext): ProxyHandler } }) => module.handler.withContext(app));
      handlers.set(route.entry, loaded);
    }
    return loaded;
  };
  let authorize: Promise<AuthorizerHandler> | undefined;

  function event(route: RouteDefinition, spec: RequestSpec = {}): APIGatewayProxyEvent {
    const path = fillPath(route.path, spec.pathParameters);
    const requestId = randomUUID();
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'Accept-Encoding': 'gzip, deflate, br',
      'CloudFront-Forwarded-Proto': 'https',
      'CloudFront-Is-Desktop-Viewer': 'false',
      'CloudFront-Is-Mobile-Viewer': 'true',
      'CloudFront-Viewer-Country': 'CN',
      Host: `${API_ID}.execute-api.us-east-1.amazonaws.com`,
      'User-Agent': 'CaptionsApp/2.4.1 (iPhone; iOS 17.5)',
      Via: '2.0 0123456789abcdef0123456789abcdef.cloudfront.net (CloudFront)',
      'X-Amz-Cf-Id': 'Zx3tHq0yWbKcQe5Fv2JmNp8LsRdAuGiO7TkYwXjB6Ch1VzEf4Mg9Da==',
      'X-Amzn-Trace-Id': `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`,
      'X-Forwarded-For': '203.0.113.7, 130.176.1.12',
      'X-Forwarded-Port': '443',
      'X-Forwarded-Proto': 'https',
      ...(spec.account ? { Authorization: `Bearer ${spec.account.token}` } : {}),
      ...(spec.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...spec.headers,
    };
    const query = spec.query && Object.keys(spec.query).length > 0 ? spec.query : null;
    return {
      resource: route.path,
      path,
      httpMethod: route.method,
      headers,
      multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
      queryStringParameters: query,
      multiValueQueryStringParameters: query && Object.fromEntries(Object.entries(query).map(([name, value]) => [name, [value]])),
      pathParameters: spec.pathParameters ?? null,
      stageVariables: null,
      body: spec.body === undefined ? null : JSON.stringify(spec.body),
      isBase64Encoded: false,
      requestContext: {
        accountId: ACCOUNT_ID,
        apiId: API_ID,
        authorizer: spec.account?.authorizer ?? null,
        domainName: `${API_ID}.execute-api.us-east-1.amazonaws.com`,
        domainPrefix: API_ID,
        extendedRequestId: randomBytes(8).toString('base64'),
        httpMethod: route.method,
        identity: {
          accessKey: null,
          accountId: route.auth === 'iam' ? ACCOUNT_ID : null,
          apiKey: null,
          apiKeyId: null,
          caller: route.auth === 'iam' ? SUPPORT_ACTOR : null,
          clientCert: null,
          cognitoAuthenticationProvider: null,
          cognitoAuthenticationType: null,
          cognitoIdentityId: null,
          cognitoIdentityPoolId: null,
          principalOrgId: null,
          sourceIp: '203.0.113.7',
          user: null,
          userAgent: headers['User-Agent']!,
          // An /admin route (AWS_IAM): API Gateway names the signer, here a support person's SSO role.
          userArn: route.auth === 'iam' ? SUPPORT_ACTOR : null,
        },
        path: `/${STAGE}${path}`,
        protocol: 'HTTP/1.1',
        requestId,
        requestTime: new Date().toUTCString(),
        requestTimeEpoch: Date.now(),
        resourceId: 'abc123',
        resourcePath: route.path,
        stage: STAGE,
      },
    } as APIGatewayProxyEvent;
  }

  async function invoke(id: string, spec: RequestSpec = {}): Promise<APIGatewayProxyResult> {
    const route = findRoute(id);
    const run = await handler(route);
    const proxyEvent = event(route, spec);
    return run(proxyEvent, lambdaContext(route, proxyEvent.requestContext.requestId));
  }

  async function call<T>(id: string, spec: RequestSpec = {}): Promise<T> {
    const result = await invoke(id, spec);
    if (result.statusCode < 200 || result.statusCode > 299) throw new Error(`${id} answered ${result.statusCode}: ${result.body}`);
    return (result.body ? JSON.parse(result.body) : undefined) as T;
  }

  async function record(work: () => Promise<unknown>): Promise<RecordedCommand[]> {
    const recorded: RecordedCommand[] = [];
    const original = serviceClient.send;
    // Patched on the instance for the recording only, so the timed runs go through the SDK untouched.
    serviceClient.send = (async (command: { constructor: RecordedCommand['Command']; input: unknown }, ...rest: unknown[]) => {
      const entry: RecordedCommand = { Command: command.constructor, input: structuredClone(command.input), startedAt: performance.now(), endedAt: 0 };
      recorded.push(entry);
      try {
        return await (original as (...args: unknown[]) => Promise<unknown>).call(serviceClient, command, ...rest);
      } finally {
        entry.endedAt = performance.now();
      }
    }) as unknown as typeof serviceClient.send;
    try {
      await work();
    } finally {
      serviceClient.send = original;
    }
    return recorded;
  }

  async function countRequests(work: () => Promise<unknown>): Promise<number> {
    let requests = 0;
    const name = `benchRequestCounter-${randomUUID()}`;
    // In the deserialize step: below the retry middleware, so every attempt is one request.
    serviceClient.middlewareStack.add(
      (next) => async (args) => {
        requests++;
        return next(args);
      },
      { step: 'deserialize', name, priority: 'low' },
    );
    try {
      await work();
    } finally {
      serviceClient.middlewareStack.remove(name);
    }
    return requests;
  }

  async function usage(work: () => Promise<unknown>): Promise<WorkUsage> {
    if (dynamoUsage || logs) throw new Error('usage() does not nest: measure one piece of work at a time');
    const before = outbox.list();
    dynamoUsage = emptyUsage();
    logs = { bytes: 0, lines: 0 };
    const measured = { dynamo: dynamoUsage, logs };
    try {
      await work();
    } finally {
      dynamoUsage = undefined;
      logs = undefined;
    }
    const delivered = outbox.list().slice(0, outbox.list().length - before.length);
    return {
      dynamo: measured.dynamo,
      logBytes: measured.logs.bytes,
      logLines: measured.logs.lines,
      messages: { email: delivered.filter((entry) => entry.channel === 'email').length, sms: delivered.filter((entry) => entry.channel === 'sms').length },
    };
  }

  async function authorizeToken(token: string): Promise<APIGatewayAuthorizerResult> {
    authorize ??= import(pathToFileURL(join(PROJECT_ROOT, authorizer.entry)).href).then(
      (module: { handler: { withContext(app: AppContext): AuthorizerHandler } }) => module.handler.withContext(app),
    );
    return (await authorize)({
      type: 'TOKEN',
      authorizationToken: `Bearer ${token}`,
      methodArn: `arn:aws:execute-api:us-east-1:${ACCOUNT_ID}:${API_ID}/${STAGE}/GET/api/users/me`,
    });
  }

  let signUps = 0;
  async function signUp(label: string, password?: string): Promise<Account> {
    const email = `${label}-${process.pid}-${signUps++}@example.com`;
    await call('POST /api/verify-code/send', { body: { type: 'email', target: email } });
    const code = outbox.list(email)[0]!.code;
    const signedIn = password
      ? (await call('POST /api/auth/register', { body: { email, verifyCode: code, password } }),
        await call<{ token: string; userId: number }>('POST /api/auth/login', { body: { email, password } }))
      : await call<{ token: string; userId: number }>('POST /api/verify-code/verify', { body: { target: email, verifyCode: code } });
    // The real authorizer decides, and its context reaches the handler as API Gateway passes it.
    const decision = await authorizeToken(signedIn.token);
    const context = Object.fromEntries(Object.entries(decision.context ?? {}).map(([key, value]) => [key, String(value)]));
    return { userId: signedIn.userId, email, token: signedIn.token, authorizer: { principalId: decision.principalId, ...context } };
  }

  return {
    config,
    clock,
    outbox,
    bare,
    app,
    handler,
    invoke,
    call,
    event,
    context: (route, proxyEvent) => lambdaContext(route, proxyEvent.requestContext.requestId),
    record,
    countRequests,
    usage,
    signUp,
    authorize: authorizeToken,
    standIns,
    close: async () => {
      await standIns.close();
      bare.destroy();
      serviceClient.destroy();
      if (!options.dynamo) await dynamo.stop();
    },
  };
}

/**
 * Replays recorded commands on another client: commands the handler had in flight together are
 * sent together again, so the floor is not slowed by serialising what the handler overlapped.
 */
export function waves(recorded: RecordedCommand[]): RecordedCommand[][] {
  const result: RecordedCommand[][] = [];
  let current: RecordedCommand[] = [];
  let currentEnd = -Infinity;
  for (const command of [...recorded].sort((a, b) => a.startedAt - b.startedAt)) {
    if (current.length > 0 && command.startedAt >= currentEnd) {
      result.push(current);
      current = [];
    }
    current.push(command);
    currentEnd = Math.max(currentEnd, command.endedAt);
  }
  if (current.length > 0) result.push(current);
  return result;
}

export async function replay(client: DynamoDBDocumentClient, plan: RecordedCommand[][]): Promise<void> {
  for (const wave of plan) {
    await Promise.all(wave.map((command) => client.send(new command.Command(command.input as never) as never)));
  }
}
