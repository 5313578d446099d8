/**
 * Domain errors. Each class has a stable UPPER_SNAKE `code` (the `error` field of a response body)
 * and keeps the underlying failure as `cause`, as jose's errors do. Only `shared/http/error-map.ts`
 * turns them into HTTP statuses; nothing else in the code base knows about status codes.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export interface ValidationIssue {
  path: string;
  message: string;
}

export class InvalidJsonError extends DomainError {
  readonly code = 'INVALID_JSON';
}

export class PayloadTooLargeError extends DomainError {
  readonly code = 'PAYLOAD_TOO_LARGE';
}

export class ValidationError extends DomainError {
  readonly code = 'VALIDATION_FAILED';
  constructor(
    message: string,
    readonly details: ValidationIssue[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Errors that tell the caller to come back later carry the wait in whole seconds. */
export abstract class RetryLaterError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class CodeCooldownError extends RetryLaterError {
  readonly code = 'CODE_COOLDOWN';
}

export class CodeDailyLimitError extends RetryLaterError {
  readonly code = 'CODE_DAILY_LIMIT';
}

/** The deployment's SMS budget for this hour (SMS_MAX_PER_HOUR) is spent; e-mail codes still go out. */
export class SmsLimitReachedError extends RetryLaterError {
  readonly code = 'SMS_LIMIT_REACHED';
}

export class LoginLockedError extends RetryLaterError {
  readonly code = 'LOGIN_LOCKED';
}

export class CodeInvalidError extends DomainError {
  readonly code = 'CODE_INVALID';
}

export class CodeAttemptsExceededError extends DomainError {
  readonly code = 'CODE_ATTEMPTS_EXCEEDED';
}

export class AccountExistsError extends DomainError {
  readonly code = 'ACCOUNT_EXISTS';
}

export class InvalidCredentialsError extends DomainError {
  readonly code = 'INVALID_CREDENTIALS';
}

export class DeviceBoundElsewhereError extends DomainError {
  readonly code = 'DEVICE_BOUND_ELSEWHERE';
}

export class UnauthorizedError extends DomainError {
  readonly code = 'UNAUTHORIZED';
}

export class NotFoundError extends DomainError {
  readonly code = 'NOT_FOUND';
}

/** An Idempotency-Key used again within its lifetime for a different request. */
export class IdempotencyKeyReusedError extends DomainError {
  readonly code = 'IDEMPOTENCY_KEY_REUSED';
}

export class DeliveryFailedError extends DomainError {
  readonly code = 'DELIVERY_FAILED';
}

/** A dependency (DynamoDB, Secrets Manager) is unavailable after retries: worth retrying later. */
export class ServiceUnavailableError extends DomainError {
  readonly code = 'SERVICE_UNAVAILABLE';
}
