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
  readonly codeSender: CodeSender;
}

/** A port built on first use: a function that never sends a code never creates SES or SNS clients. */
function lazily<T>(what: string, adapter: Adapter<T> | undefined, cfg: Config): () => T {
  let value: T | undefined;
  return () => {
    if (!adapter) throw new Error(`This function has no ${what}; its route table entry does not declare one`);
    return (value ??= adapter(cfg));
  };
}

export type { Logging };

export function createContext(deps: ContextDeps): AppContext {
  const { config } = deps;
  // Counts nobody asked for (a unit test's context) are dropped; every deployed function gives a sink.
  const metrics = lazily('metrics sink', deps.metrics ?? (() => ({ publish: () => undefined })), config);
  const db = lazily('database', deps.database, config);
  const secrets = lazily('secret', deps.secrets, config);
  const codeSender = lazily('code sender', deps.codeSender, config);
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
    get codeSender() {
      return codeSender();
    },
  };
}
