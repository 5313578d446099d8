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

let sink: LogSink = (line) => process.stdout.write(`${line}\n`);

/** Redirects every logger (tests capture the logs of a whole flow this way). */
export function setLogSink(next: LogSink): void {
  sink = next;
}

/** Powertools' Logger, writing its lines to the sink instead of its own console. */
class SinkLogger extends PowertoolsLogger {
  protected override printLog(_logLevel: number, log: LogItem): void {
    log.prepareForPrint();
    sink(JSON.stringify(log.getAttributes(), this.getJsonReplacer()));
  }
}

export interface LoggingOptions {
  /** The `service` key of every line (shared/config.ts SERVICE_NAME). */
  serviceName?: string;
  /** Share of invocations logged at debug level whatever the level (LOG_DEBUG_SAMPLE_RATE). */
  debugSampleRate?: number;
}

// One Powertools logger per container and settings: it keeps the cold-start flag and the Lambda
// context of the invocation. Request fields are passed with each line instead of through
// Powertools' child loggers, which would each report a cold start of their own.
const roots = new Map<string, SinkLogger>();

function rootLogger(level: LogLevel, options: LoggingOptions): SinkLogger {
  const key = `${level}|${options.serviceName ?? ''}|${options.debugSampleRate ?? 0}`;
  let root = roots.get(key);
  if (!root) {
    root = new SinkLogger({
      logLevel: level.toUpperCase() as 'INFO',
      serviceName: options.serviceName ?? 'captioning',
      sampleRateValue: options.debugSampleRate ?? 0,
    });
    roots.set(key, root);
  }
  return root;
}

export function createLogger(level: LogLevel, base: Record<string, unknown> = {}, options: LoggingOptions = {}): Logger {
  const root = rootLogger(level, options);
  return {
    debug: (message, fields) => root.debug(message, { ...base, ...fields }),
    info: (message, fields) => root.info(message, { ...base, ...fields }),
    warn: (message, fields) => root.warn(message, { ...base, ...fields }),
    error: (message, fields) => root.error(message, { ...base, ...fields }),
    child: (fields) => createLogger(level, { ...base, ...fields }, options),
  };
}

/**
 * Starts a Lambda invocation's logging: its context (function name, memory, ARN, `cold_start`),
 * its correlation id, and a new draw of the debug sample. Lambda runs one invocation at a time
 * per container, which is what makes this per-container state right; the local server, which
 * serves requests side by side, does not call it.
 */
export function startInvocationLogging(level: LogLevel, options: LoggingOptions, context: Context, correlationId: string | undefined): void {
  const root = rootLogger(level, options);
  root.addContext(context);
  root.setCorrelationId(correlationId);
  root.refreshSampleRateCalculation();
}

/** `a***@example.com`, `+86*******00`: enough to follow a case, not enough to identify a person. */
export function maskTarget(target: string): string {
  const at = target.indexOf('@');
  if (at > 0) return `${target[0]}***${target.slice(at)}`;
  if (target.length <= 5) return '*'.repeat(target.length);
  return `${target.slice(0, 3)}${'*'.repeat(target.length - 5)}${target.slice(-2)}`;
}
