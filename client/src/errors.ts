/** What the service answers on every non-2xx response (contract section 2). */
export interface ErrorBody {
  code?: number;
  message?: string;
  error?: string;
  details?: { path: string; message: string }[];
  retryAfterSeconds?: number;
  requestId?: string;
}

/** The service answered with an error: its stable `error` name, status and the rest of its body. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  /** 1 for rule violations of the seed (wrong code, cooldown ...); otherwise the HTTP status. */
  readonly code: number;
  /** Stable UPPER_SNAKE name, for programs (`VALIDATION_FAILED`, `CODE_COOLDOWN` ...). */
  readonly error: string;
  readonly details: ErrorBody['details'];
  readonly retryAfterSeconds: number | undefined;
  readonly requestId: string | undefined;

  constructor(status: number, body: ErrorBody | undefined, retryAfter?: string | null) {
    super(body?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.code ?? status;
    this.error = body?.error ?? `HTTP_${status}`;
    this.details = body?.details;
    this.retryAfterSeconds = body?.retryAfterSeconds ?? retryAfterSeconds(retryAfter);
    this.requestId = body?.requestId;
  }
}

/**
 * A speech request refused (`client.speech`, docs/client.md#speech-sessions), with the fields its
 * refusals carry: `supportedProviders` (LANGUAGE_NOT_SUPPORTED: this deployment's providers that
 * serve the language), `fallbackProviders` (PROVIDER_UNAVAILABLE, beside `retryAfterSeconds`),
 * `resetsAt` (SPEECH_QUOTA_EXHAUSTED: when minutes come back).
 */
export class SpeechError extends ApiError {
  override name = 'SpeechError';
  readonly supportedProviders: string[] | undefined;
  readonly fallbackProviders: string[] | undefined;
  readonly resetsAt: string | undefined;

  constructor(status: number, body: (ErrorBody & { supportedProviders?: string[]; fallbackProviders?: string[]; resetsAt?: string }) | undefined, retryAfter?: string | null) {
    super(status, body, retryAfter);
    this.supportedProviders = body?.supportedProviders;
    this.fallbackProviders = body?.fallbackProviders;
    this.resetsAt = body?.resetsAt;
  }
}

/** No answer came: offline, the connection dropped, or the attempt timed out (after the retries). */
export class NetworkError extends Error {
  override name = 'NetworkError';
}

/**
 * Nobody is signed in: never was, logged out, or the service ended the session. Thrown without a
 * request; sign in again.
 */
export class SignedOutError extends Error {
  override name = 'SignedOutError';
  constructor(readonly reason: string) {
    super(`Signed out (${reason}): sign in again`);
  }
}

/** `Retry-After` in seconds (a number or an HTTP date); undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null | undefined): number | undefined {
  if (!header) return undefined;
  const seconds = /^\d+$/.test(header) ? Number(header) : (Date.parse(header) - Date.now()) / 1000;
  return Number.isFinite(seconds) ? Math.max(0, Math.ceil(seconds)) : undefined;
}

/** Reads an error answer into an ApiError (a body that is not JSON still gives its status). */
export async function apiErrorOf(response: Response, parsed?: unknown, Kind: new (status: number, body: ErrorBody | undefined, retryAfter?: string | null) => ApiError = ApiError): Promise<ApiError> {
  let body = parsed;
  if (body === undefined) {
    const text = await response.text().catch(() => '');
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  return new Kind(response.status, typeof body === 'object' && body ? (body as ErrorBody) : undefined, response.headers.get('Retry-After'));
}
