/**
 * Structured JSON logs, one object per line, for CloudWatch Logs Insights. Callers pass fields,
 * never messages built from user input; personal data goes through `maskTarget` first, and codes,
 * passwords, tokens and secrets are never passed at all.
 */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

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

export function createLogger(level: LogLevel, base: Record<string, unknown> = {}): Logger {
  const write = (at: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
    sink(JSON.stringify({ level: at, time: new Date().toISOString(), message, ...base, ...fields }));
  };
  return {
    debug: (message, fields) => write('debug', message, fields),
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
    child: (fields) => createLogger(level, { ...base, ...fields }),
  };
}

/** `a***@example.com`, `+86*******00`: enough to follow a case, not enough to identify a person. */
export function maskTarget(target: string): string {
  const at = target.indexOf('@');
  if (at > 0) return `${target[0]}***${target.slice(at)}`;
  if (target.length <= 5) return '*'.repeat(target.length);
  return `${target.slice(0, 3)}${'*'.repeat(target.length - 5)}${target.slice(-2)}`;
}
