import type { Config } from './config';
import type { Database } from './db/client';
import type { Logger } from './logging/logger';
import type { Clock } from './ports/clock';
import type { CodeSender } from './ports/code-sender';
import type { Metrics } from './ports/metrics';
import type { ServiceKeys } from './ports/secrets';

/**
 * What a domain operation may use: the AppContext of its function (shared/context.ts) with the
 * invocation's own logger and metrics. Built per invocation by the HTTP wrapper (shared/http/endpoint.ts).
 */
export interface ServiceContext {
  config: Config;
  clock: Clock;
  db: Database;
  /** The derived signing and hashing keys; read from the secret once per container. */
  keys(): Promise<ServiceKeys>;
  /** Only functions whose route says they send codes have one. */
  codeSender: CodeSender;
  log: Logger;
  /** Business metrics of this invocation, published once when it ends (shared/ports/metrics.ts). */
  metrics: Metrics;
}
