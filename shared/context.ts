import { parseConfig } from './config';
import type { Config } from './config';
import type { Database } from './db/client';
import { createLogging } from './logging/logger';
import type { LogSink, Logging } from './logging/logger';
import { systemClock } from './ports/clock';
import type { Clock } from './ports/clock';
import type { CodeSender } from './ports/code-sender';
import type { MetricSink } from './ports/metrics';
import { cachedKeys } from './ports/secrets';
import type { SecretSource, ServiceKeys } from './ports/secrets';
import type { ProviderSecrets } from './ports/provider-secrets';
import type { PushKeys } from './ports/push';
import type { SpeechKeys, SpeechProviders } from './ports/speech';

/** Builds a port from the settings; called on first use, once per context. */
export type Adapter<T> = (cfg: Config) => T;

/** What a context is made of. Only `config` is required: a port nobody gives fails when it is used. */
export interface ContextDeps {
  config: Config;
  clock?: Clock;
  /** Where log lines go; stdout by default. */
  logSink?: LogSink;
  metrics?: Adapter<MetricSink>;
  database?: Adapter<Database>;
  secrets?: Adapter<SecretSource>;
  codeSender?: Adapter<CodeSender>;
  /** The speech providers' adapters (shared/adapters/speech), given the keys' reader. */
  speech?: (cfg: Config, keys: () => Promise<SpeechKeys>) => SpeechProviders;
}

/**
 * Everything the handlers, the authorizer and the services use beyond the request: the settings,
 * the clock, logging, where business metrics go, and the ports (DynamoDB, the root secret's keys,
 * the code sender). Built once per Lambda container and once per local server or test; nothing
 * reaches these through module state.
 */
export interface AppContext {
  readonly config: Config;
  readonly clock: Clock;
  readonly logging: Logging;
  /** The sink of business metrics (EMF lines on Lambda; dropped when the deps give none). */
  readonly metrics: MetricSink;
  readonly db: Database;
  /** The derived signing and hashing keys: read from the secret once per context and KEYS_MAX_AGE_SECONDS. */
  keys(): Promise<ServiceKeys>;
  /**
   * Apple's private key and WeChat's app secrets (social sign-in); the AWS source reads them once
   * per KEYS_MAX_AGE_SECONDS. Only in the bundles of routes with `providers` (shared/bundle-defines.d.ts).
   */
  providerSecrets(): Promise<ProviderSecrets>;
  readonly codeSender: CodeSender;
  /** The silent push's keys (shared/ports/push.ts): only where pushes are sent (`BUNDLED_PUSH`, shared/bundle-defines.d.ts). */
  pushKeys(): Promise<PushKeys>;
  /** Short-lived credentials of the speech providers (issue 44); only where a route has `speech`. */
  readonly speech: SpeechProviders;
}

/** A port built on first use: a function that never sends a code never creates SES or SNS clients. */
function lazily<T>(what: string, adapter: Adapter<T> | undefined, cfg: Config): () => T {
  let value: T | undefined;
  return () => {
    if (!adapter) throw new Error(`This function has no ${what}; its route table entry does not declare one`);
    return (value ??= adapter(cfg));
  };
}


export function createContext(deps: ContextDeps): AppContext {
  const { config } = deps;
  // Counts nobody asked for (a unit test's context) are dropped; every deployed function gives a sink.
  const metrics = lazily('metrics sink', deps.metrics ?? (() => ({ publish: () => undefined })), config);
  const db = lazily('database', deps.database, config);
  const secrets = lazily('secret', deps.secrets, config);
  const codeSender = lazily('code sender', deps.codeSender, config);
  const speechAdapter = deps.speech;
  // Only where a route issues speech credentials (shared/bundle-defines.d.ts): elsewhere the bundle carries no adapter.
  const speech =
    typeof BUNDLED_SPEECH === 'string' && BUNDLED_SPEECH !== 'issuer'
      ? undefined
      : lazily('speech providers', speechAdapter && ((cfg: Config) => speechAdapter(cfg, () => secrets().speechKeys?.() ?? Promise.resolve({}))), config);
  let keys: (() => Promise<ServiceKeys>) | undefined;
  let logging: Logging | undefined;
  return {
    config,
    clock: deps.clock ?? systemClock,
    // On first use, like the ports: on Lambda the first request builds the logger, as before
    // contexts existed, so a context adds nothing to a function's cold import.
    get logging() {
      return (logging ??= createLogging({
        level: config.LOG_LEVEL,
        serviceName: config.SERVICE_NAME,
        debugSampleRate: config.LOG_DEBUG_SAMPLE_RATE,
        sink: deps.logSink,
      }));
    },
    get metrics() {
      return metrics();
    },
    get db() {
      return db();
    },
    keys: () => (keys ??= cachedKeys(secrets(), config.KEYS_MAX_AGE_SECONDS * 1000))(),
    // Cached by the source (shared/adapters/aws-secrets.ts); only where a route talks to the
    // providers (shared/bundle-defines.d.ts).
    ...(typeof BUNDLED_PROVIDERS === 'boolean' && !BUNDLED_PROVIDERS
      ? ({} as Pick<AppContext, 'providerSecrets'>)
      : { providerSecrets: () => secrets().providerSecrets?.() ?? Promise.resolve({}) }),
    ...(typeof BUNDLED_PUSH === 'boolean' && !BUNDLED_PUSH
      ? ({} as Pick<AppContext, 'pushKeys'>)
      : { pushKeys: () => secrets().pushKeys?.() ?? Promise.resolve({}) }),
    get codeSender() {
      return codeSender();
    },
    // A getter of its own, never spread: spreading an object runs its getters, which would build
    // (or, without an adapter, refuse) the speech port when the context is made.
    get speech() {
      if (!speech) throw new Error('This function has no speech providers; its route table entry does not declare one');
      return speech();
    },
  };
}

/** A handler that serves one context, and can be given another (the local server, tests, the bench). */
export type ContextHandler<H> = H & { withContext(app: AppContext): H };

/**
 * How a Lambda handler gets its context: it builds one itself, once per container, from the
 * environment and `deps` (the adapters its route table entry names), on its first call. With
 * `atInit`, on Lambda it is built while the module loads and `atInit` warms it (creating clients):
 * a bad setting fails the first cold start loudly, and the init phase has full CPU. The local
 * server, the tests and the bench build their own context and call `handler.withContext(ctx)`:
 * nothing is overridden behind the handler's back, and two servers in one process keep their own
 * settings and ports.
 */
export function perContainer<A extends unknown[], R>(
  withContext: (app: AppContext) => (...args: A) => R,
  deps: Omit<ContextDeps, 'config'>,
  options: { atInit?: (app: AppContext) => void } = {},
): ContextHandler<(...args: A) => R> {
  const fromEnvironment = (warm?: (app: AppContext) => void) => {
    const app = createContext({ config: parseConfig(process.env), ...deps });
    warm?.(app);
    return withContext(app);
  };
  let onThisContainer = options.atInit && process.env.AWS_LAMBDA_FUNCTION_NAME ? fromEnvironment(options.atInit) : undefined;
  return Object.assign((...args: A) => (onThisContainer ??= fromEnvironment())(...args), { withContext });
}
