import { ErrorWithState, RetryLaterError, ValidationError, declarationOf } from '../errors';

/** The contract's `{code, message}` body, with the optional fields of contract section 2. */
export interface ErrorBody {
  code: number;
  message: string;
  error: string;
  details?: { path: string; message: string }[];
  retryAfterSeconds?: number;
  requestId?: string;
  /** RECORD_CHANGED: the record as it is now; RECORD_DELETED: its tombstone. */
  current?: unknown;
  tombstone?: unknown;
  /** Speech sessions (docs/speech.md): LANGUAGE_NOT_SUPPORTED, PROVIDER_UNAVAILABLE, SPEECH_QUOTA_EXHAUSTED. */
  supportedProviders?: string[];
  fallbackProviders?: string[];
  resetsAt?: string;
}

export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

/**
 * Seconds a client should wait after a 503 of ours (the database busy or unreachable, a record
 * that kept changing, a failed delivery): long enough for the SDK-level causes to pass, short
 * enough that a person does not notice. Every 503 and 429 the service answers carries Retry-After.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

const INTERNAL: ErrorBody = { code: 500, message: 'Internal server error.', error: 'INTERNAL' };

/**
 * The one place that turns errors into responses, from what each domain error class declares
 * (shared/errors.ts). Domain errors keep their message (written for the caller); anything else
 * becomes a bare 500 that names nothing of the inside.
 */
export function errorResponse(error: unknown, requestId: string | undefined): ErrorResponse {
  const declaration = declarationOf(error);
  if (!declaration) {
    return { status: 500, body: { ...INTERNAL, ...(requestId ? { requestId } : {}) }, headers: {} };
  }
  const mapped = declaration.http;
  const body: ErrorBody = { code: mapped.code, message: (error as Error).message, error: declaration.code };
  const headers: Record<string, string> = {};
  if (error instanceof ValidationError && error.details.length > 0) body.details = error.details;
  if (error instanceof ErrorWithState) Object.assign(body, error.answer);
  if (error instanceof RetryLaterError) {
    body.retryAfterSeconds = error.retryAfterSeconds;
    headers['Retry-After'] = String(error.retryAfterSeconds);
    if (error.answer) Object.assign(body, error.answer);
  } else if (mapped.status === 503 || mapped.status === 429) headers['Retry-After'] = String(UNAVAILABLE_RETRY_AFTER_SECONDS);
  if (mapped.status >= 500 && requestId) body.requestId = requestId;
  return { status: mapped.status, body, headers };
}
