import { DomainError, RetryLaterError, ValidationError } from '../errors';

/** The contract's `{code, message}` body, with the optional fields of contract section 2. */
export interface ErrorBody {
  code: number;
  message: string;
  error: string;
  details?: { path: string; message: string }[];
  retryAfterSeconds?: number;
  requestId?: string;
}

export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

/** The one place that knows which HTTP status and body code each domain error gets. */
export const HTTP_BY_ERROR_CODE: Record<string, { status: number; code: number }> = {
  INVALID_JSON: { status: 400, code: 400 },
  VALIDATION_FAILED: { status: 400, code: 400 },
  PAYLOAD_TOO_LARGE: { status: 413, code: 413 },
  CODE_COOLDOWN: { status: 400, code: 1 },
  CODE_DAILY_LIMIT: { status: 400, code: 1 },
  CODE_INVALID: { status: 400, code: 1 },
  CODE_ATTEMPTS_EXCEEDED: { status: 400, code: 1 },
  ACCOUNT_EXISTS: { status: 400, code: 1 },
  INVALID_CREDENTIALS: { status: 400, code: 1 },
  LOGIN_LOCKED: { status: 400, code: 1 },
  DEVICE_BOUND_ELSEWHERE: { status: 400, code: 1 },
  UNAUTHORIZED: { status: 401, code: 401 },
  NOT_FOUND: { status: 404, code: 404 },
  IDEMPOTENCY_KEY_REUSED: { status: 422, code: 422 },
  DELIVERY_FAILED: { status: 503, code: 1 },
  SMS_LIMIT_REACHED: { status: 429, code: 429 },
  SERVICE_UNAVAILABLE: { status: 503, code: 503 },
};

/**
 * Seconds a client should wait after a 503 of ours (the database busy or unreachable, a record
 * that kept changing, a failed delivery): long enough for the SDK-level causes to pass, short
 * enough that a person does not notice. Every 503 and 429 the service answers carries Retry-After.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

const INTERNAL: ErrorBody = { code: 500, message: 'Internal server error.', error: 'INTERNAL' };

/**
 * Turns any thrown value into a response. Domain errors keep their message (written for the
 * caller); anything else becomes a bare 500 that names nothing of the inside.
 */
export function errorResponse(error: unknown, requestId: string | undefined): ErrorResponse {
  const mapped = error instanceof DomainError ? HTTP_BY_ERROR_CODE[error.code] : undefined;
  if (!(error instanceof DomainError) || !mapped) {
    return { status: 500, body: { ...INTERNAL, ...(requestId ? { requestId } : {}) }, headers: {} };
  }
  const body: ErrorBody = { code: mapped.code, message: error.message, error: error.code };
  const headers: Record<string, string> = {};
  if (error instanceof ValidationError && error.details.length > 0) body.details = error.details;
  if (error instanceof RetryLaterError) {
    body.retryAfterSeconds = error.retryAfterSeconds;
    headers['Retry-After'] = String(error.retryAfterSeconds);
  } else if (mapped.status === 503 || mapped.status === 429) headers['Retry-After'] = String(UNAVAILABLE_RETRY_AFTER_SECONDS);
  if (mapped.status >= 500 && requestId) body.requestId = requestId;
  return { status: mapped.status, body, headers };
}
