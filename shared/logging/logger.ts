import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { LogItem } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';

/**
 * Structured JSON logs, one object per line, written by AWS Lambda Powertools' Logger: the
 * standard keys CloudWatch users expect (`level`, `message`, `timestamp`, `service`, and on Lambda
 * the function context, `cold_start` and the API Gateway request id as `correlation_id`). Callers
 * pass fields, never messages built from user input; personal data goes through `maskTarget`
 * first, and codes, passwords, tokens and secrets are never passed at all.
 */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export type LogSink = (line: string) => void;

/** Lambda reads the function's stdout into CloudWatch Logs, one line per entry. */
const STDOUT_SINK: LogSink = (line) => process.stdout.write(`${line}\n`);

/** Powertools' Logger, writing its lines to a sink instead of its own console. */
class SinkLogger extends PowertoolsLogger {
  // Set after Powertools' constructor has run: anything it printed before went to stdout.
  sink?: LogSink;

  protected override printLog(_logLevel: number, log: LogItem): void {
    log.prepareForPrint();
    (this.sink ?? STDOUT_SINK)(JSON.stringify(log.getAttributes(), this.getJsonReplacer()));
  }
}

export interface LoggingOptions {
  level: LogLevel;
  /** The `service` key of every line (shared/config.ts SERVICE_NAME). */
  serviceName?: string;
  /** Share of invocations logged at debug level whatever the level (LOG_DEBUG_SAMPLE_RATE). */
  debugSampleRate?: number;
  /** Where lines go: stdout unless a test or tool captures them. */
  sink?: LogSink;
}

/** The loggers of one context (shared/context.ts). */
export interface Logging {
  /** A logger adding `base` to each of its lines. */
  logger(base?: Record<string, unknown>): Logger;
  /**
   * Starts a Lambda invocation's logging: its context (function name, memory, ARN, `cold_start`),
   * its correlation id, and a new draw of the debug sample. Lambda runs one invocation at a time
   * per container, which is what makes this per-container state right; the local server, which
   * serves requests side by side, does not call it.
   */
  startInvocation(context: Context, correlationId: string | undefined): void;
}

/**
 * One Powertools logger per context (once per container on Lambda): it keeps the cold-start flag
 * and the Lambda context of the invocation. Request fields are passed with each line instead of
 * through Powertools' child loggers, which would each report a cold start of their own.
 */
export function createLogging(options: LoggingOptions): Logging {
  const root = new SinkLogger({
    logLevel: options.level.toUpperCase() as 'INFO',
    serviceName: options.serviceName ?? 'captioning',
    sampleRateValue: options.debugSampleRate ?? 0,
  });
  root.sink = options.sink ?? STDOUT_SINK;
  const logger = (base: Record<string, unknown> = {}): Logger => ({
    debug: (message, fields) => root.debug(message, { ...base, ...fields }),
    info: (message, fields) => root.info(message, { ...base, ...fields }),
    warn: (message, fields) => root.warn(message, { ...base, ...fields }),
    error: (message, fields) => root.error(message, { ...base, ...fields }),
    child: (fields) => logger({ ...base, ...fields }),
  });
  return {
    logger,
    startInvocation(context, correlationId) {
      root.addContext(context);
      root.setCorrelationId(correlationId);
      root.refreshSampleRateCalculation();
    },
  };
}

/** `a***@example.com`, `+86*******00`: enough to follow a case, not enough to identify a person. */
export function maskTarget(target: string): string {
  const at = target.indexOf('@');
  if (at > 0) return `${target[0]}***${target.slice(at)}`;
  if (target.length <= 5) return '*'.repeat(target.length);
  return `${target.slice(0, 3)}${'*'.repeat(target.length - 5)}${target.slice(-2)}`;
}
