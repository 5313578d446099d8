import type { AppContext } from './context';
import type { Logger } from './logging/logger';
import type { Metrics } from './ports/metrics';

/**
 * What a domain operation may use: the AppContext of its function (shared/context.ts: settings,
 * clock, DynamoDB, the root secret's keys, the code sender where its route sends codes) with the
 * invocation's own logger and metrics. Built per invocation by the HTTP wrapper (shared/http/endpoint.ts).
 */
export type ServiceContext = Pick<AppContext, 'config' | 'clock' | 'db' | 'keys' | 'providerSecrets' | 'codeSender' | 'speech'> & {
  log: Logger;
  /** Business metrics of this invocation, published once when it ends (shared/ports/metrics.ts). */
  metrics: Metrics;
  /**
   * Milliseconds until the invocation times out (Lambda's getRemainingTimeInMillis; the local
   * server models it); Infinity where nothing bounds it. Work that may outgrow a request (an
   * account's purge) stops in time by it.
   */
  remainingTimeMs(): number;
};
