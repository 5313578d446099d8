import { NetworkError, retryAfterSeconds } from './errors';

/** How hard the client tries before it gives up on one call. */
export interface RetryOptions {
  /** Attempts in all, the first included (default 4). */
  attempts?: number;
  /** The first backoff's ceiling; each retry doubles it (default 300 ms). */
  baseDelayMs?: number;
  /** The ceiling of any backoff (default 10 s). */
  maxDelayMs?: number;
  /** A longer `Retry-After` is not waited for: the call fails with it (default 60 s). */
  maxRetryAfterSeconds?: number;
  /** One attempt without an answer for this long counts as a network error (default 20 s). */
  timeoutMs?: number;
}

export type RetryPolicy = Required<RetryOptions>;

export const retryPolicy = (options: RetryOptions = {}): RetryPolicy => ({
  attempts: 4,
  baseDelayMs: 300,
  maxDelayMs: 10_000,
  maxRetryAfterSeconds: 60,
  timeoutMs: 20_000,
  ...options,
});

/**
 * Statuses that say "not now, try again": a request timeout, throttling, and a service briefly
 * unable to serve. Other 4xx answers are final; other 5xx may have done part of the work.
 */
const RETRY_STATUSES = [408, 429, 503];
/**
 * Of those, the ones that prove the request was not acted on (the body never arrived, or the
 * request was throttled before any work): the only retries of a POST that takes no
 * Idempotency-Key.
 */
const NOT_ACTED_ON = [408, 429];

export const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** Capped exponential backoff with full jitter: anywhere from 0 to the attempt's ceiling. */
export const backoff = (policy: RetryPolicy, retry: number) => Math.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);

export type Fetch = (input: string, init: RequestInit) => Promise<Response>;

/**
 * Sends one request, retrying network errors, 408, 429 and 503 with backoff (or the answer's
 * `Retry-After`, up to its cap). `repeatable`: sending it twice does no harm (GET, PUT, PATCH,
 * DELETE, a POST with its Idempotency-Key); otherwise only answers that prove nothing was done are
 * retried, never a request that may have reached the service. `finalErrors`: error names
 * (`PROVIDER_UNAVAILABLE`) answered at once though their status is one retried: the caller decides.
 */
export async function sendWithRetries(fetch: Fetch, url: string, init: RequestInit, repeatable: boolean, policy: RetryPolicy, finalErrors: readonly string[] = []): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const last = attempt >= policy.attempts;
    let response: Response;
    try {
      response = await attempt1(fetch, url, init, policy.timeoutMs);
    } catch (error) {
      if (init.signal?.aborted) throw error;
      if (last || !repeatable) throw new NetworkError(`No answer from ${url}: ${(error as Error).message}`, { cause: error });
      await sleep(backoff(policy, attempt - 1));
      continue;
    }
    if (last || !RETRY_STATUSES.includes(response.status) || (!repeatable && !NOT_ACTED_ON.includes(response.status))) return response;
    if (finalErrors.length > 0 && finalErrors.includes(await errorName(response))) return response;
    const wait = retryAfterSeconds(response.headers.get('Retry-After'));
    if (wait !== undefined && wait > policy.maxRetryAfterSeconds) return response;
    await response.text().catch(() => undefined);
    await sleep(wait !== undefined ? wait * 1000 : backoff(policy, attempt - 1));
  }
}

/** The `error` of an error answer, read from a copy (the caller still reads the answer). */
async function errorName(response: Response): Promise<string> {
  try {
    return String(((await response.clone().json()) as { error?: unknown } | null)?.error ?? '');
  } catch {
    return '';
  }
}

/** One attempt, abandoned after the timeout (or when the caller aborts). */
async function attempt1(fetch: Fetch, url: string, init: RequestInit, timeoutMs: number): Promise<Response> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  const timer = setTimeout(abort, timeoutMs);
  init.signal?.addEventListener('abort', abort);
  try {
    return await fetch(url, { ...init, signal: controller.signal });
  } finally {
    clearTimeout(timer);
    init.signal?.removeEventListener('abort', abort);
  }
}
