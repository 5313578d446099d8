import type { Clock } from './ports/clock';
import type { CodeSender } from './ports/code-sender';
import type { MetricSink } from './ports/metrics';
import type { SecretSource } from './ports/secrets';

/**
 * Ports that replace the AWS adapters when the handlers run outside Lambda: the local server
 * installs the dev outbox, an environment secret, a movable clock and a metrics summary here before the first request.
 */
export interface PortOverrides {
  clock?: Clock;
  codeSender?: CodeSender;
  secrets?: SecretSource;
  /** Where business metrics go instead of EMF lines (the local server's /dev/metrics). */
  metrics?: MetricSink;
}

let overrides: PortOverrides = {};

export function overridePorts(next: PortOverrides): void {
  overrides = { ...overrides, ...next };
}

export function portOverrides(): Readonly<PortOverrides> {
  return overrides;
}
