/**
 * Domain errors. Each class declares, once, everything about itself (jose style: the `code` is
 * both static and on every instance): its stable UPPER_SNAKE `code` (the `error` field of a
 * response body), the HTTP status and body `code` it answers with, and what it means to a caller.
 * shared/http/error-map.ts turns an instance into a response from these; the OpenAPI generator
 * (infra/tools/openapi.ts) documents every class from them. Nothing else knows about statuses.
 * The underlying failure is kept as `cause`, as jose's errors do.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The facts a declared error class carries as statics. */
export interface ErrorDeclaration {
  /** The `error` field of the body. */
  code: string;
  /** The HTTP status, and the body's `code`: 1 for the seed's rule violations, otherwise the status. */
  http: { status: number; code: number };
  /** For the API reference: what the error means to a caller. */
  description: string;
}

/** Whether a value is a declared error class (a class with the statics of ErrorDeclaration). */
export const isDeclaration = (value: unknown): value is ErrorDeclaration =>
  typeof value === 'function' && typeof (value as Partial<ErrorDeclaration>).code === 'string' && typeof (value as Partial<ErrorDeclaration>).http === 'object';

/** The declaration of an error's class; undefined for anything not declared here. */
export function declarationOf(error: unknown): ErrorDeclaration | undefined {
  if (!(error instanceof DomainError)) return undefined;
  return isDeclaration(error.constructor) ? error.constructor : undefined;
}

export interface ValidationIssue {
  path: string;
  message: string;
}

export class InvalidJsonError extends DomainError {
  static readonly code = 'INVALID_JSON';
  static readonly http = { status: 400, code: 400 };
  static readonly description = 'the body is not JSON, or was sent without `Content-Type: application/json`';
  readonly code = InvalidJsonError.code;
}

export class PayloadTooLargeError extends DomainError {
  static readonly code = 'PAYLOAD_TOO_LARGE';
  static readonly http = { status: 413, code: 413 };
  static readonly description = 'the body is larger than 1.5 MB';
  readonly code = PayloadTooLargeError.code;
}

export class ValidationError extends DomainError {
  static readonly code = 'VALIDATION_FAILED';
  static readonly http = { status: 400, code: 400 };
  static readonly description = 'a field (or query, path or header value) is missing, of the wrong type or out of range; `details` lists every problem';
  readonly code = ValidationError.code;
  constructor(
    message: string,
    readonly details: ValidationIssue[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Errors that tell the caller to come back later carry the wait in whole seconds (and `Retry-After`). */
export abstract class RetryLaterError extends DomainError {
  /** Extra fields of the body beside the wait (a speech provider's `fallbackProviders`); shared/http/error-map.ts adds them. */
  readonly answer: Record<string, unknown> | undefined;

  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    options?: { cause?: unknown; answer?: Record<string, unknown> },
  ) {
    super(message, options);
    this.answer = options?.answer;
  }
}

export class CodeCooldownError extends RetryLaterError {
  static readonly code = 'CODE_COOLDOWN';
  static readonly http = { status: 400, code: 1 };
  static readonly description = 'a code was sent to this target less than 60 seconds ago (`Retry-After`)';
  readonly code = CodeCooldownError.code;
}

export class CodeDailyLimitError extends RetryLaterError {
  static readonly code = 'CODE_DAILY_LIMIT';
  static readonly http = { status: 400, code: 1 };
  static readonly description = 'the daily number of codes for this target is reached (`Retry-After`)';
  readonly code = CodeDailyLimitError.code;
}

/** The deployment's SMS budget for this hour (SMS_MAX_PER_HOUR) is spent; e-mail codes still go out. */
export class SmsLimitReachedError extends RetryLaterError {
  static readonly code = 'SMS_LIMIT_REACHED';
  static readonly http = { status: 429, code: 429 };
  static readonly description = 'the deployment’s hourly budget of SMS codes is spent (`Retry-After`); e-mail codes still work';
  readonly code = SmsLimitReachedError.code;
}

export class LoginLockedError extends RetryLaterError {
  static readonly code = 'LOGIN_LOCKED';
  static readonly http = { status: 400, code: 1 };
  static readonly description = 'too many failed password logins: password login is locked for a while (`Retry-After`); code sign-in still works';
  readonly code = LoginLockedError.code;
}

export class CodeInvalidError extends DomainError {
  static readonly code = 'CODE_INVALID';
  static readonly http = { status: 400, code: 1 };
  static readonly description = 'the code is wrong, expired or already used (or was not sent to this target)';
  readonly code = CodeInvalidError.code;
}

export class CodeAttemptsExceededError extends DomainError {
  static readonly code = 'CODE_ATTEMPTS_EXCEEDED';
  static readonly http = { status: 400, code: 1 };
  static readonly description = 'five wrong tries: the code is void; request a new one';
  readonly code = CodeAttemptsExceededError.code;
}

export class AccountExistsError extends DomainError {
  static readonly code = 'ACCOUNT_EXISTS';
  static readonly http = { status: 400, code: 1 };
  static readonly description = 'an account with this e-mail or phone exists';
  readonly code = AccountExistsError.code;
}

export class InvalidCredentialsError extends DomainError {
  static readonly code = 'INVALID_CREDENTIALS';
  static readonly http = { status: 400, code: 1 };
  static readonly description = 'wrong e-mail/phone or password (the same answer for unknown accounts)';
  readonly code = InvalidCredentialsError.code;
}

export class DeviceBoundElsewhereError extends DomainError {
  static readonly code = 'DEVICE_BOUND_ELSEWHERE';
  static readonly http = { status: 400, code: 1 };
  static readonly description = 'the device is bound to another account';
  readonly code = DeviceBoundElsewhereError.code;
}

export class UnauthorizedError extends DomainError {
  static readonly code = 'UNAUTHORIZED';
  static readonly http = { status: 401, code: 401 };
  static readonly description = 'the token is missing, malformed, invalid or expired, or its account was deleted, its password reset or its session ended';
  readonly code = UnauthorizedError.code;
}

/** A refresh token that is malformed, forged, or not of a session this service issued. */
export class RefreshTokenInvalidError extends DomainError {
  static readonly code = 'REFRESH_TOKEN_INVALID';
  static readonly http = { status: 401, code: 401 };
  static readonly description = 'the refresh token is malformed or was not issued by this service: sign in again';
  readonly code = RefreshTokenInvalidError.code;
}

/** The session was idle for SESSION_IDLE_DAYS or reached SESSION_MAX_DAYS: sign in again. */
export class RefreshTokenExpiredError extends DomainError {
  static readonly code = 'REFRESH_TOKEN_EXPIRED';
  static readonly http = { status: 401, code: 401 };
  static readonly description = 'the session was idle for SESSION_IDLE_DAYS or is older than SESSION_MAX_DAYS: sign in again';
  readonly code = RefreshTokenExpiredError.code;
}

/**
 * The session of a refresh token has ended: signed out, ended from another device, ended by a
 * password reset, or ended because one of its refresh tokens was used twice. A reuse is answered
 * exactly like the others, so whoever replayed a stolen token learns nothing more.
 */
export class SessionEndedError extends DomainError {
  static readonly code = 'SESSION_ENDED';
  static readonly http = { status: 401, code: 401 };
  static readonly description = 'the session of this refresh token has ended (signed out, ended from another device, a password reset, or a refresh token used twice): sign in again';
  readonly code = SessionEndedError.code;
}

/**
 * Any refused passkey ceremony: a bad signature, origin, RP ID, flag or counter, a challenge that
 * is forged, expired, of another ceremony or account, or spent, an unknown or removed credential,
 * a deleted account. One answer whatever failed, so it tells an attacker nothing; the log says
 * which check refused (shared/identity/passkey-service.ts).
 */
export class PasskeyInvalidError extends DomainError {
  static readonly code = 'PASSKEY_INVALID';
  static readonly http = { status: 401, code: 401 };
  static readonly description = 'the passkey could not be verified (whatever the reason; ask for new options and try again, or sign in with a code)';
  readonly code = PasskeyInvalidError.code;

  /** One answer whatever failed; `reason` (which check refused) is for the log only. */
  static because(reason: string): PasskeyInvalidError {
    return new PasskeyInvalidError('The passkey could not be verified.', { cause: reason });
  }
}

export class PasskeyLimitReachedError extends DomainError {
  static readonly code = 'PASSKEY_LIMIT_REACHED';
  static readonly http = { status: 400, code: 1 };
  static readonly description = 'the account has 10 passkeys, the most it may have: remove one first';
  readonly code = PasskeyLimitReachedError.code;

  static of(limit: number): PasskeyLimitReachedError {
    return new PasskeyLimitReachedError(`An account can have at most ${limit} passkeys. Remove one first.`);
  }
}

/**
 * The account was disabled by support (issue 37). Answered only once the credential (code,
 * password, passkey, refresh token) was proven, so it tells nothing to someone without it.
 */
export class AccountDisabledError extends DomainError {
  static readonly code = 'ACCOUNT_DISABLED';
  static readonly http = { status: 403, code: 403 };
  static readonly description = 'the account is disabled: it cannot sign in by any method until support enables it';
  readonly code = AccountDisabledError.code;

  static readonly message = 'This account is disabled. Contact support.';
}

export class NotFoundError extends DomainError {
  static readonly code = 'NOT_FOUND';
  static readonly http = { status: 404, code: 404 };
  static readonly description = 'no such resource of yours';
  readonly code = NotFoundError.code;
}

/**
 * Errors whose answer carries a piece of state beside the message (the record as it is now, or
 * its tombstone), so that the caller can go on without another request. `answer` holds the extra
 * fields of the body; shared/http/error-map.ts adds them.
 */
export abstract class ErrorWithState extends DomainError {
  constructor(
    message: string,
    readonly answer: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** If-Match named another revision than the record's: `current` is the record as it is now. */
export class RecordChangedError extends ErrorWithState {
  static readonly code = 'RECORD_CHANGED';
  static readonly http = { status: 412, code: 412 };
  static readonly description = 'the record is no longer at the revision `If-Match` names; `current` is the record as it is now';
  readonly code = RecordChangedError.code;
}

/** The record was deleted (or, for a create with its `clientRecordId`, was created and deleted): `tombstone` says when. */
export class RecordDeletedError extends ErrorWithState {
  static readonly code = 'RECORD_DELETED';
  static readonly http = { status: 410, code: 410 };
  static readonly description = 'the record was deleted: a change made with `If-Match`, or a create with its `clientRecordId`, is refused; `tombstone` says when';
  readonly code = RecordDeletedError.code;
}

/** A `clientRecordId` already names a record made from a different body. */
export class ClientRecordIdReusedError extends DomainError {
  static readonly code = 'CLIENT_RECORD_ID_REUSED';
  static readonly http = { status: 409, code: 409 };
  static readonly description = 'this `clientRecordId` already names a record created with a different body';
  readonly code = ClientRecordIdReusedError.code;
}

/** A change-feed cursor older than the tombstones are kept: the device walks the feed again from the start. */
export class CursorExpiredError extends DomainError {
  static readonly code = 'CURSOR_EXPIRED';
  static readonly http = { status: 410, code: 410 };
  static readonly description = 'the cursor is older than RECORD_TOMBSTONE_RETENTION_SECONDS and records changed since: walk the feed again without a cursor and drop the local records it does not bring';
  readonly code = CursorExpiredError.code;
}

/** An Idempotency-Key used again within its lifetime for a different request. */
export class IdempotencyKeyReusedError extends DomainError {
  static readonly code = 'IDEMPOTENCY_KEY_REUSED';
  static readonly http = { status: 422, code: 422 };
  static readonly description = 'the `Idempotency-Key` was used in the last 24 hours for a different request';
  readonly code = IdempotencyKeyReusedError.code;
}

export class DeliveryFailedError extends DomainError {
  static readonly code = 'DELIVERY_FAILED';
  static readonly http = { status: 503, code: 1 };
  static readonly description = 'the code could not be e-mailed or texted; no code is pending and the cooldown is released';
  readonly code = DeliveryFailedError.code;
}

/** A dependency (DynamoDB, Secrets Manager) is unavailable after retries: worth retrying later. */
export class ServiceUnavailableError extends DomainError {
  static readonly code = 'SERVICE_UNAVAILABLE';
  static readonly http = { status: 503, code: 503 };
  static readonly description = 'the database or the secret store is busy or unreachable, or the request kept colliding with concurrent ones; retry shortly';
  /** What a caller reads when a dependency is busy or unreachable (also the authorizer's gateway response). */
  static readonly busyMessage = 'The service is busy. Try again shortly.';
  readonly code = ServiceUnavailableError.code;

  /** DynamoDB or the secret store failed in a way worth retrying: `cause` is kept for the logs, never answered. */
  static busy(cause: unknown): ServiceUnavailableError {
    return new ServiceUnavailableError(ServiceUnavailableError.busyMessage, { cause });
  }
}

/** Sign in with Apple, Google or WeChat (docs/social-sign-in.md): the provider has no client ids in this deployment. */
export class ProviderNotConfiguredError extends DomainError {
  static readonly code = 'PROVIDER_NOT_CONFIGURED';
  static readonly http = { status: 404, code: 404 };
  static readonly description = 'this deployment does not offer sign-in or speech with that provider';
  readonly code = ProviderNotConfiguredError.code;
}

/**
 * Any refused social credential: a token forged, expired, for another app, with a wrong or spent
 * nonce; a code invalid or already used. One answer whatever failed; the reason goes to the log only.
 */
export class SocialCredentialInvalidError extends DomainError {
  static readonly code = 'SOCIAL_CREDENTIAL_INVALID';
  static readonly http = { status: 401, code: 401 };
  static readonly description = 'the provider’s token or code could not be verified (whatever the reason): get a new nonce and sign in with the provider again';
  readonly code = SocialCredentialInvalidError.code;

  /** `reason` (which check refused) is for the log only. */
  static because(reason: string): SocialCredentialInvalidError {
    return new SocialCredentialInvalidError('The sign-in could not be verified.', { cause: reason });
  }
}

/**
 * The provider's keys or token endpoint cannot be reached and nothing usable is cached; for a
 * speech session (docs/speech.md) the provider failed, timed out or refused the service's key:
 * `fallbackProviders` names the configured providers that serve the language, and nothing was kept.
 */
export class ProviderUnavailableError extends RetryLaterError {
  static readonly code = 'PROVIDER_UNAVAILABLE';
  static readonly http = { status: 503, code: 503 };
  static readonly description = 'the sign-in or speech provider cannot be reached right now (`Retry-After`; speech: `fallbackProviders`)';
  readonly code = ProviderUnavailableError.code;
}

/**
 * A new social identity whose e-mail belongs to an account, from a provider not authoritative for
 * that address: nothing is created; the person signs in the usual way and links it in the settings.
 */
export class AccountExistsLinkRequiredError extends DomainError {
  static readonly code = 'ACCOUNT_EXISTS_LINK_REQUIRED';
  static readonly http = { status: 409, code: 409 };
  static readonly description = 'an account already uses this e-mail address: sign in to it the usual way, then link the provider from the settings';
  readonly code = AccountExistsLinkRequiredError.code;
}

/** Linking a sign-in provider (docs/social-sign-in.md): only soon after the session signed in. */
export class ReauthenticationRequiredError extends DomainError {
  static readonly code = 'REAUTHENTICATION_REQUIRED';
  static readonly http = { status: 403, code: 403 };
  static readonly description = 'linking a sign-in provider needs a session signed in within the last 10 minutes: sign in again, then link';
  readonly code = ReauthenticationRequiredError.code;
}

/** The provider's identity is already linked to another account (an identity belongs to one account). */
export class IdentityInUseError extends DomainError {
  static readonly code = 'IDENTITY_IN_USE';
  static readonly http = { status: 409, code: 409 };
  static readonly description = 'this Apple, Google or WeChat identity belongs to another account: unlink it there, or delete that account, first';
  readonly code = IdentityInUseError.code;
}

/** The account has an identity of this provider already (one per provider). */
export class ProviderAlreadyLinkedError extends DomainError {
  static readonly code = 'PROVIDER_ALREADY_LINKED';
  static readonly http = { status: 409, code: 409 };
  static readonly description = 'the account already has another identity of this provider linked: unlink it first';
  readonly code = ProviderAlreadyLinkedError.code;
}

/** Unlinking would leave the account with no way in (no e-mail, phone, passkey or other identity). */
export class LastSignInMethodError extends DomainError {
  static readonly code = 'LAST_SIGN_IN_METHOD';
  static readonly http = { status: 409, code: 409 };
  static readonly description = 'this is the account’s only way to sign in (no e-mail, phone, passkey or other provider): add another first';
  readonly code = LastSignInMethodError.code;
}

/** Speech sessions (issue 44, docs/speech.md): the language is not one the provider serves. */
export class LanguageNotSupportedError extends ErrorWithState {
  static readonly code = 'LANGUAGE_NOT_SUPPORTED';
  static readonly http = { status: 400, code: 400 };
  static readonly description = 'the speech provider does not serve this language; `supportedProviders` lists this deployment’s providers that do';
  readonly code = LanguageNotSupportedError.code;
}

/** The day's or month's speech minutes are spent, or the session reached its maximum: `resetsAt` says when minutes come back. */
export class SpeechQuotaExhaustedError extends ErrorWithState {
  static readonly code = 'SPEECH_QUOTA_EXHAUSTED';
  static readonly http = { status: 403, code: 403 };
  static readonly description =
    'no speech minutes are left today or this month, or the session reached its longest length (the session ends and is settled); `resetsAt` is when the day’s or month’s minutes come back, in the account’s time zone';
  readonly code = SpeechQuotaExhaustedError.code;
}

/** As many live speech sessions as SPEECH_CONCURRENT_SESSIONS: end one first (or let it expire). */
export class SpeechSessionsLimitError extends DomainError {
  static readonly code = 'SPEECH_SESSIONS_LIMIT';
  static readonly http = { status: 409, code: 409 };
  static readonly description = 'the account has as many live speech sessions as it may: end one (a session not renewed for two heartbeats ends by itself)';
  readonly code = SpeechSessionsLimitError.code;
}

/** A `clientSessionId` already names a speech session started with another body. */
export class ClientSessionIdReusedError extends DomainError {
  static readonly code = 'CLIENT_SESSION_ID_REUSED';
  static readonly http = { status: 409, code: 409 };
  static readonly description = 'this `clientSessionId` already names a speech session started with a different body';
  readonly code = ClientSessionIdReusedError.code;
}

/** The speech session has ended (by `end`, its quota, or expiry after two missed heartbeats). */
export class SpeechSessionEndedError extends DomainError {
  static readonly code = 'SPEECH_SESSION_ENDED';
  static readonly http = { status: 409, code: 409 };
  static readonly description = 'the speech session has ended (ended, out of minutes, or not renewed for two heartbeats): start a new one';
  readonly code = SpeechSessionEndedError.code;
}
