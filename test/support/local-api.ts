import { randomBytes, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, inject } from 'vitest';
import { parseConfig } from '../../shared/config';
import type { Config } from '../../shared/config';
import type { AppContext } from '../../shared/context';
import type { LogSink } from '../../shared/logging/logger';
import type { CodeSender } from '../../shared/ports/code-sender';
import type { SecretSource } from '../../shared/ports/secrets';
import { localProviderSecrets } from '../../shared/ports/provider-secrets';
import { localSpeechKeys } from '../../shared/ports/speech';
import { localPushKeys } from '../../shared/ports/push';
import type { Database } from '../../shared/db/client';
import { ensureTable } from '../../infra/local/create-table';
import { DevOutbox } from '../../infra/local/dev-outbox';
import type { OutboxEntry } from '../../infra/local/dev-outbox';
import { startLocalServer } from '../../infra/local/server';
import type { LocalServer } from '../../infra/local/server';
import { LOCAL_ACCOUNT, deploymentContext, startDeployedFunctions } from '../../infra/local/deployed';
import type { DeployedFunctions } from '../../infra/local/deployed';
import type { Deployment } from '../../infra/local/deployed-functions';
import { DevMetrics } from '../../infra/local/dev-metrics';
import { builtFunctions } from './built-functions';
import { MovableClock } from './movable-clock';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is, without JSON encoding or a Content-Type (for malformed-body tests). */
  rawBody?: string;
  token?: string;
  headers?: Record<string, string>;
}

export interface LocalApi {
  url: string;
  config: Config;
  clock: MovableClock;
  outbox: DevOutbox;
  /** The business metrics the handlers published (what GET /dev/metrics serves). */
  metrics: DevMetrics;
  /** A document client on the same table, for checking what was (not) written. */
  db: Database;
  rootSecret: string;
  /** The context the server's handlers serve: its DynamoDB client is the one they use (the sources' server). */
  context: AppContext;
  /** What serves the API: the source modules (`npm start`), or the bundles `cdk synth` builds (`npm run start:deployed`). */
  serves: 'sources' | 'deployed';
  /** Runs a job of the route table once (its handler, or its deployed function as EventBridge invokes it). */
  runJob(name: string): Promise<unknown>;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /**
   * Resolves once every live-channel fan-out started so far (its pokes, its silent pushes) has
   * finished: a write's fan-out starts before its request is answered.
   */
  settled(): Promise<void>;
  /**
   * A second server on the same table, clock and outbox whose handlers use these ports instead
   * (an AWS adapter, a failing sender): its context is built with them, nothing is swapped.
   */
  withPorts(ports: { codeSender?: CodeSender; secrets?: SecretSource }): Promise<LocalApi>;
  close(): Promise<void>;
}

let target: 'sources' | 'deployed' = 'sources';
let bundles: Promise<Deployment> | undefined;

/**
 * From now on in this test file, startLocalApi serves the deployed bundles (`npm run
 * start:deployed`, infra/local/deployed.ts) instead of the sources: as `cdk synth` builds them,
 * built once per change of the sources and shared (test/support/built-functions.ts), each server's functions given the environment their templates give for
 * the server's settings (as CDK context), run on the Lambda runtime's Node. A test file that
 * imports another's tests after calling this runs them against what ships.
 */
/** Whether this file's servers are the deployed bundles (serveDeployedBundles) rather than the sources. */
export const servingDeployed = (): boolean => target === 'deployed';

export function serveDeployedBundles(): void {
  target = 'deployed';
  // Before the file's own hooks: when the bundles are not built yet, esbuild runs once per function, which outlasts hookTimeout.
  beforeAll(() => deployedBundles().then(() => undefined), 15 * 60_000);
}

/** The bundles `cdk synth` builds, once per change of their sources (test/support/built-functions.ts). */
function deployedBundles(): Promise<Deployment> {
  bundles ??= builtFunctions().then((built) => built.deployment);
  return bundles;
}

/**
 * The local server, in this test file's process, on a free port, against the run's DynamoDB Local
 * and a table of its own: test files run in parallel without seeing each other's data.
 */
export async function startLocalApi(env: Record<string, string> = {}, options: { logSink?: LogSink } = {}): Promise<LocalApi> {
  const endpoint = inject('dynamoEndpoint');
  const config = parseConfig({
    TABLE_NAME: `test-${randomUUID()}`,
    DYNAMODB_ENDPOINT: endpoint,
    AWS_REGION: 'us-east-1',
    LOG_LEVEL: 'silent',
    // Test files send far more codes from 127.0.0.1 than a client should; the limit has its own test.
    LOCAL_CODE_REQUESTS_PER_5_MINUTES: '1000000',
    // The scheduled jobs run when a test runs them (or asks for the local schedule itself).
    LOCAL_JOB_INTERVAL_SECONDS: '0',
    // scrypt at 2^10 instead of OWASP's 2^17 (~0.4 s of CPU a password): tests about hashing
    // itself pass PASSWORD_HASH_COST: '17' (the unit tests and identity-accounts' rehash use it).
    PASSWORD_HASH_COST: '10',
    ...env,
  });
  await ensureTable(endpoint, config.TABLE_NAME);
  const clock = new MovableClock();
  const outbox = new DevOutbox(clock, false);
  const rootSecret = randomBytes(32).toString('base64url');
  // Apple's private key and WeChat's secrets as local mode reads them (APPLE_PRIVATE_KEY, WECHAT_APP_SECRETS).
  const providerSecrets = localProviderSecrets(env);
  const metrics = new DevMetrics();
  // The speech providers' keys as local mode reads them (AZURE_SPEECH_KEY, DEEPGRAM_API_KEY, TENCENT_SECRET_ID/KEY);
  // the deployed functions read them from the speech secret, as on AWS.
  const speechKeys = localSpeechKeys(env);
  let functions: DeployedFunctions | undefined;
  if (target === 'deployed') {
    functions = await startDeployedFunctions({
      bundles: await deployedBundles(),
      context: deploymentContext({ ...env, LOG_LEVEL: process.env.DEPLOYED_LOG_LEVEL ?? config.LOG_LEVEL }),
      local: { region: config.AWS_REGION, account: LOCAL_ACCOUNT, tableName: config.TABLE_NAME },
      dynamodbEndpoint: endpoint,
      rootSecret,
      providerSecrets,
      speechKeys,
      outbox,
      metrics,
      // The functions' own log lines only when asked for: DEPLOYED_LOG_LEVEL=warn npx vitest run <file>.
      output: (line) => void (process.env.DEPLOYED_LOG_LEVEL && console.error(line)),
    });
  }
  // The silent push's keys as local mode reads them (APNS_PRIVATE_KEY, FCM_SERVICE_ACCOUNT).
  const pushKeys = localPushKeys(env);
  const server = await startLocalServer({ config, clock, rootSecret, outbox, metrics, port: 0, logSink: options.logSink, providerSecrets, speechKeys, pushKeys, ...(functions ? { functions } : {}) }).catch(async (error: unknown) => {
    await functions?.close();
    throw error;
  });
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
  );

  const serve = (server: LocalServer, close: () => Promise<void>): LocalApi => {
    async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
      const headers: Record<string, string> = { ...options.headers };
      let body: string | undefined;
      if (options.rawBody !== undefined) body = options.rawBody;
      else if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      // fetch sends no body with GET; HTTP allows one, and the server refuses it (a client may send one).
      if (body !== undefined && method === 'GET') return withBodyOverHttp<T>(method, `${server.url}${path}`, headers, body);
      const response = await fetch(`${server.url}${path}`, { method, headers, body });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as T) : (undefined as T) };
    }
    return {
      url: server.url,
      config,
      clock,
      outbox,
      metrics: server.metrics,
      db: { client, tableName: config.TABLE_NAME },
      rootSecret,
      context: server.context,
      serves: functions ? 'deployed' : 'sources',
      runJob: (name) => server.runJob(name),
      request,
      settled: () => server.realtime.settled(),
      withPorts: async (ports) => {
        if (functions) throw new Error('withPorts swaps the ports of the sources: the deployed functions reach only the stand-ins');
        const other = await startLocalServer({ config, clock, rootSecret, outbox, port: 0, logSink: options.logSink, providerSecrets, speechKeys, ports });
        return serve(other, () => other.close());
      },
      close,
    };
  };

  return serve(server, async () => {
    await server.close();
    await functions?.close();
    client.destroy();
  });
}

/** The newest code the dev outbox holds for a target. */
export function latestCode(api: LocalApi, target: string): string {
  const entry: OutboxEntry | undefined = api.outbox.list(target)[0];
  if (!entry) throw new Error(`no code was sent to ${target}`);
  return entry.code;
}

/** Requests a code for a target and signs in with it; returns the verify response body. */
export async function signIn(api: LocalApi, target: string) {
  const type = target.includes('@') ? 'email' : 'sms';
  const sent = await api.request('POST', '/api/verify-code/send', { body: { type, target } });
  if (sent.status !== 200) throw new Error(`send failed: ${JSON.stringify(sent.body)}`);
  const verified = await api.request('POST', '/api/verify-code/verify', { body: { target, verifyCode: latestCode(api, target) } });
  if (verified.status !== 200) throw new Error(`verify failed: ${JSON.stringify(verified.body)}`);
  return verified.body as { token: string; userId: number; phone: string | null; email: string | null };
}

let counter = 0;
/** A fresh e-mail address per call, so tests never collide on cooldowns. */
export const uniqueEmail = (label = 'user') => `${label}-${Date.now().toString(36)}-${counter++}@example.com`;
/** A fresh valid mobile number per call (China mobile range). */
export const uniquePhone = () => `+86138${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;

/** A request with a body that fetch will not send (a GET's), over node:http. */
export function withBodyOverHttp<T = any>(method: string, url: string, headers: Record<string, string>, body: string): Promise<ApiResponse<T>> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(url, { method, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) answerHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        resolve({ status: response.statusCode ?? 0, headers: answerHeaders, body: text ? (JSON.parse(text) as T) : (undefined as T) });
      });
      response.on('error', reject);
    });
    // The server may answer (413) before it has read the whole body.
    sent.on('error', reject);
    sent.end(body);
  });
}
