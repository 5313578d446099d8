import { LOG_LEVELS } from './logging/logger';
import type { LogLevel } from './logging/logger';

/**
 * Every setting of the service, parsed once per process from the environment. A bad value stops
 * the process at start (Lambda init, local server start) instead of failing a request later.
 * Secrets are never settings: only the ARN of the secret is (see shared/ports/secrets.ts).
 *
 * Plain functions, not a schema library: every function and the authorizer parse these at init,
 * and building a zod/mini object of 17 settings cost ~5 ms of each cold import (docs/performance.md).
 * Request and response bodies, which clients send and read, keep their zod schemas.
 */

export interface Config {
  TABLE_NAME: string;
  /** DynamoDB Local's URL (local server and tests); unset on AWS. */
  DYNAMODB_ENDPOINT: string | undefined;
  AWS_REGION: string;
  TOKEN_TTL_MS: number;
  /** Seconds during which the refresh token just rotated away still answers the same new one. */
  REFRESH_GRACE_SECONDS: number;
  /** Days without a refresh after which a session ends. */
  SESSION_IDLE_DAYS: number;
  /** Days after its sign-in at which a session ends, however often it is refreshed. */
  SESSION_MAX_DAYS: number;
  CODE_TTL_SECONDS: number;
  CODE_RESEND_SECONDS: number;
  CODE_DAILY_LIMIT: number;
  AUTHORIZER_CACHE_SECONDS: number;
  /** Country calling codes SMS may go to, without `+`; undefined: every country. */
  SMS_ALLOWED_COUNTRY_CODES: string[] | undefined;
  JWT_ISSUER: string;
  JWT_AUDIENCE: string;
  JWT_SECRET_ARN: string | undefined;
  /** How long a container keeps the keys derived from the root secret before it reads the secret again. */
  KEYS_MAX_AGE_SECONDS: number;
  SES_FROM_ADDRESS: string | undefined;
  APP_NAME: string;
  /** Browser origins allowed to call the API: `['*']` for any, or a list of exact origins. */
  CORS_ORIGINS: readonly string[];
  LOG_LEVEL: LogLevel;
  /** Share (0–1) of Lambda invocations logged at debug level whatever LOG_LEVEL says. */
  LOG_DEBUG_SAMPLE_RATE: number;
  /**
   * Per attempt of a DynamoDB call (the SDK's NodeHttpHandler; connect and request together bound
   * the authorizer's one signed read, shared/adapters/signed-reads.ts):
   * a stalled table fails the attempt instead of holding the request, and after the SDK's retries
   * the caller gets the contract's 503.
   */
  DYNAMODB_CONNECT_TIMEOUT_MS: number;
  DYNAMODB_REQUEST_TIMEOUT_MS: number;
  /** The same for SES, SNS and Secrets Manager. */
  AWS_CONNECT_TIMEOUT_MS: number;
  AWS_REQUEST_TIMEOUT_MS: number;
  /** The SMS circuit breaker: SMS codes per UTC hour for the whole deployment; past it SMS sends answer 429. */
  SMS_MAX_PER_HOUR: number;
  /** Local server only (infra/local/server.ts): what API Gateway and WAF bound on AWS. */
  LOCAL_CODE_REQUESTS_PER_5_MINUTES: number;
  LOCAL_HEADERS_TIMEOUT_MS: number;
  LOCAL_REQUEST_TIMEOUT_MS: number;
  LOCAL_IDLE_TIMEOUT_MS: number;
  LOCAL_MAX_CONNECTIONS: number;
  /**
   * The most a DELETE /api/users/me request spends purging the account's data before it answers;
   * the scheduled job purges the rest. On Lambda the function's remaining time less a 2 s margin
   * bounds it too (shared/identity/account-deletion-service.ts). The default answers within about
   * 7 s however much the account holds, inside the functions' 10 s timeout, locally as on AWS.
   */
  ACCOUNT_PURGE_BUDGET_MS: number;
  /** Days the admin API's audit entries are kept (TTL); 400 by default, more than a year of tickets. */
  AUDIT_RETENTION_DAYS: number;
  /**
   * scrypt's cost, log2 of N (shared/identity/passwords.ts): 17, OWASP's, everywhere but the test
   * servers of tests that are not about hashing; below 17 only in local mode (DYNAMODB_ENDPOINT set).
   */
  PASSWORD_HASH_COST: number;
  /**
   * Local server only: the scheduled jobs (shared/routes.ts `jobs`) run every this many seconds,
   * or on their own schedule if that is more often; 0: only when called (tests that run a job
   * themselves).
   */
  LOCAL_JOB_INTERVAL_SECONDS: number;
  /**
   * The `service` dimension of the business metrics (shared/ports/metrics.ts). The stack sets
   * `captioning-<stage>`, so that two stages in one account and region keep their figures apart.
   */
  SERVICE_NAME: string;
  /**
   * Passkeys (docs/passkeys.md): the relying party's ID, the domain passkeys are bound to (a
   * passkey made for one RP ID never signs in to another); the name the platform shows; and every
   * origin whose ceremonies are accepted, exactly: web origins on the RP ID or its subdomains, and
   * native app origins (`android:apk-key-hash:<base64url SHA-256 of the signing certificate>`).
   */
  WEBAUTHN_RP_ID: string;
  WEBAUTHN_RP_NAME: string;
  WEBAUTHN_ORIGINS: readonly string[];
  /**
   * How long the tombstone of a deleted record stays in the change feed (docs/sync.md); a feed
   * cursor older than this answers 410 CURSOR_EXPIRED when records changed since it was issued.
   */
  RECORD_TOMBSTONE_RETENTION_SECONDS: number;
  /**
   * Sign in with Apple, Google and WeChat (docs/social-sign-in.md), read only by the functions of
   * routes with `providers` (shared/routes.ts): every other bundle and the authorizer are built
   * without these readers (`BUNDLED_PROVIDERS`, shared/bundle-defines.d.ts), and their values are
   * absent there. A provider is offered when its
   * client ids are set (PROVIDER_NOT_CONFIGURED otherwise). The ids a token's `aud` (and Google's
   * `azp`) may name: Apple's bundle and services ids, Google's iOS, Android and web client ids.
   * The secrets (Apple's private key, WeChat's app secrets) are never settings: Secrets Manager
   * on AWS (SOCIAL_SECRET_ARN), APPLE_PRIVATE_KEY and WECHAT_APP_SECRETS in local mode only
   * (shared/ports/provider-secrets.ts).
   */
  APPLE_CLIENT_IDS: readonly string[];
  APPLE_TEAM_ID: string | undefined;
  APPLE_KEY_ID: string | undefined;
  GOOGLE_CLIENT_IDS: readonly string[];
  /** WeChat app ids, the first the default of `POST /api/auth/wechat`. */
  WECHAT_APP_IDS: readonly string[];
  /** The ARN of the secret holding Apple's private key and WeChat's app secrets (AWS). */
  SOCIAL_SECRET_ARN: string | undefined;
  /**
   * The providers' base addresses: the real ones by default, the local stand-ins in local mode
   * and tests. A token's `iss` is checked against the real issuer whatever these say.
   */
  APPLE_API_URL: string;
  GOOGLE_JWKS_URL: string;
  WECHAT_API_URL: string;
  /** An unknown `kid` refetches a provider's key set at most once per this many seconds. */
  PROVIDER_KEYS_COOLDOWN_SECONDS: number;
  /**
   * The live channel (docs/realtime.md): the WebSocket address a ticket's `url` names (the stack
   * sets the API's `wss://` stage URL; unset locally, where it is `ws://<the request's host>/realtime`);
   * and a connection's limits, API Gateway's fixed 2 hours and 10 minutes idle on AWS and these
   * settings locally, so tests can shorten them.
   */
  REALTIME_URL: string | undefined;
  /** AWS: the WebSocket API's management endpoint (`https://<id>.execute-api.<region>.amazonaws.com/<stage>`), for the functions that send. */
  REALTIME_MANAGEMENT_URL: string | undefined;
  REALTIME_MAX_CONNECTION_SECONDS: number;
  REALTIME_IDLE_SECONDS: number;
  /**
   * Speech sessions (issue 44, docs/speech.md): the providers this deployment offers
   * (`azure,deepgram,aws,tencent`; none by default), the limits every account has unless support
   * set its own, the heartbeat the app renews at, and the live sessions an account may hold.
   */
  SPEECH_PROVIDERS: readonly SpeechProviderName[];
  SPEECH_DAILY_SECONDS: number;
  SPEECH_MONTHLY_SECONDS: number;
  SPEECH_SESSION_MAX_SECONDS: number;
  SPEECH_HEARTBEAT_SECONDS: number;
  SPEECH_CONCURRENT_SESSIONS: number;
  /** Each call to a provider's token endpoint gives up after this (then 503 PROVIDER_UNAVAILABLE). */
  SPEECH_PROVIDER_TIMEOUT_MS: number;
  /** Azure Speech: the resource's region, and its token endpoint (by default the region's issueToken). */
  AZURE_SPEECH_REGION: string;
  AZURE_SPEECH_STS_URL: string | undefined;
  /** Deepgram's API base (its grant endpoint is `<base>/v1/auth/grant`). */
  DEEPGRAM_API_URL: string;
  /** Amazon Transcribe streaming's region (the function's own by default). */
  AWS_TRANSCRIBE_REGION: string | undefined;
  /** Tencent Cloud ASR's app id (the number in the real-time address). */
  TENCENT_ASR_APP_ID: string | undefined;
  /** The ARN of the secret holding the speech providers' keys (AWS; docs/speech.md). */
  SPEECH_SECRET_ARN: string | undefined;
  /**
   * The silent push (docs/realtime.md#the-silent-push), read only by the fan-out (and the local
   * server): APNs' team id, key id and topic (the app's bundle id); Apple's address (`http://`:
   * HTTP/2 without TLS, for stand-ins; sandbox tokens go to Apple's sandbox while this is Apple's
   * production address); FCM's address and Google's token endpoint; the least time between two
   * pushes to one session. The keys are never settings: the push secret on AWS (its ARN in
   * PUSH_SECRET_ARN, given to the fan-out only), APNS_PRIVATE_KEY and FCM_SERVICE_ACCOUNT locally
   * (shared/ports/push.ts).
   */
  APNS_TEAM_ID: string | undefined;
  APNS_KEY_ID: string | undefined;
  APNS_TOPIC: string | undefined;
  APNS_URL: string;
  FCM_URL: string;
  FCM_TOKEN_URL: string;
  PUSH_MIN_INTERVAL_SECONDS: number;
  /** The ARN of the secret holding APNs' key and FCM's service account (AWS; the fan-out's alone). */
  PUSH_SECRET_ARN: string | undefined;
}

/** The speech providers a deployment may offer (docs/speech.md). */
export const SPEECH_PROVIDER_NAMES = ['azure', 'deepgram', 'aws', 'tencent'] as const;
export type SpeechProviderName = (typeof SPEECH_PROVIDER_NAMES)[number];

export class ConfigError extends Error {}

/**
 * The per-client limit on the code endpoints (shared/routes.ts CODE_PATH_PREFIX), WAF's rate rule
 * on AWS and the local server's here: requests per client address in a window of this length, and
 * the limit when a stage or the environment sets none.
 */
export const CODE_RATE_WINDOW_SECONDS = 300;
export const DEFAULT_CODE_REQUESTS_PER_WINDOW = 100;

/**
 * An AWS SDK client's request handler with the per-attempt timeouts above: a stalled service fails
 * the attempt instead of holding the request, and after the SDK's retries the caller gets the
 * contract's 503. (throwOnRequestTimeout: without it this SDK only logs a warning when
 * requestTimeout passes.)
 */
export const timedRequestHandler = (connectionTimeout: number, requestTimeout: number) => ({ connectionTimeout, requestTimeout, throwOnRequestTimeout: true });

/** A problem with one setting; collected so that one start reports every bad setting at once. */
class SettingProblem extends Error {}

type Env = Record<string, string | undefined>;
type Reader<T> = (value: string | undefined) => T;

/** Unset takes the default; a set value must be valid (an empty string is not "unset"). */
const withDefault =
  <T>(read: (value: string) => T, fallback: T): Reader<T> =>
  (value) =>
    value === undefined ? fallback : read(value);

const optional =
  <T>(read: Reader<T>): Reader<T | undefined> =>
  (value) =>
    value === undefined ? undefined : read(value);

function requiredText(min = 1, max = Infinity): Reader<string> {
  return (value) => {
    if (value === undefined) throw new SettingProblem('is required');
    if (value.length < min) throw new SettingProblem(`must be at least ${min} characters`);
    if (value.length > max) throw new SettingProblem(`must be at most ${max} characters`);
    return value;
  };
}

function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER): Reader<number> {
  return (value) => {
    const trimmed = value?.trim() ?? '';
    // Decimal digits only: `Number()` would also take '', '0x10', '1e3' and ' '.
    if (!/^[+-]?\d+$/.test(trimmed)) throw new SettingProblem('must be a whole number');
    const number = Number(trimmed);
    if (!Number.isSafeInteger(number)) throw new SettingProblem('must be a whole number');
    if (number < min) throw new SettingProblem(min === 1 ? 'must be positive' : `must be at least ${min}`);
    if (number > max) throw new SettingProblem(`must be at most ${max}`);
    return number;
  };
}

/** A share from 0 to 1: `0.05`. */
function fraction(value: string): number {
  const trimmed = value.trim();
  if (!/^(?:0|1|0?\.\d+|1\.0*)$/.test(trimmed)) throw new SettingProblem('must be a number from 0 to 1, such as 0.05');
  return Number(trimmed);
}

/** OWASP's scrypt cost (N = 2^17, r = 8, p = 1). */
export const OWASP_SCRYPT_COST = 17;

/** scrypt's log2(N): below OWASP's only against DynamoDB Local, for tests not about hashing. */
const passwordHashCost =
  (env: Env) =>
  (value: string): number => {
    const cost = wholeNumber(10, 20)(value);
    if (cost < OWASP_SCRYPT_COST && !env.DYNAMODB_ENDPOINT) throw new SettingProblem(`is below ${OWASP_SCRYPT_COST}: local mode only`);
    return cost;
  };

const url: Reader<string> = (value) => {
  if (value === undefined || !URL.canParse(value)) throw new SettingProblem('must be a URL');
  return value;
};

const logLevel: Reader<LogLevel> = (value) => {
  if (!LOG_LEVELS.includes(value as LogLevel)) throw new SettingProblem(`must be one of ${LOG_LEVELS.join(', ')}`);
  return value as LogLevel;
};

/** `86, +1,44` → ['86', '1', '44']; blank means no restriction. */
const countryCallingCodes: Reader<string[] | undefined> = (value) => {
  if (value === undefined || value.trim() === '') return undefined;
  const codes = value.split(',').map((part) => part.trim().replace(/^\+/, ''));
  if (!codes.every((code) => /^\d{1,3}$/.test(code))) throw new SettingProblem('country calling codes are 1 to 3 digits');
  return codes;
};

/**
 * `*`, or origins separated by commas: `https://app.example.com, http://localhost:3000`. Each must
 * be an origin exactly as browsers send it (scheme, host, port; no path or trailing slash), or it
 * would never match an `Origin` header and the app would fail with a CORS error nobody explains.
 */
const corsOrigins: Reader<readonly string[]> = (value) => {
  const origins = (value ?? '*').split(',').map((part) => part.trim()).filter((part) => part !== '');
  if (origins.length === 0) throw new SettingProblem('must be * or at least one origin');
  if (origins.includes('*')) {
    if (origins.length > 1) throw new SettingProblem('* allows every origin and cannot be listed with others');
    return origins;
  }
  for (const origin of origins) {
    if (!URL.canParse(origin) || new URL(origin).origin !== origin) {
      throw new SettingProblem(`${JSON.stringify(origin)} is not an origin such as https://app.example.com`);
    }
  }
  return origins;
};

/** A host name as WebAuthn takes it for an RP ID: lower case, no scheme, port, path or trailing dot. */
const HOST_NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

const rpId: Reader<string> = (value) => {
  const id = value ?? 'localhost';
  if (!HOST_NAME.test(id) || /^[\d.]+$/.test(id)) {
    throw new SettingProblem(`${JSON.stringify(id)} is not a domain such as example.com (no scheme, port or path; IP addresses cannot be RP IDs)`);
  }
  return id;
};

/** `android:apk-key-hash:` and the base64url SHA-256 of the app's signing certificate, as Android sends it. */
const ANDROID_ORIGIN = /^android:apk-key-hash:[A-Za-z0-9_-]{43}$/;

/**
 * Origins separated by commas: each exactly as the client reports it in clientDataJSON, so that
 * the check at every ceremony is a plain comparison. Web origins need https (http only on
 * localhost, a secure context to browsers); their host must be the RP ID or under it, or no
 * browser would ever make a passkey for it there, and the mistake would show only as refusals.
 * Read together with WEBAUTHN_RP_ID, which it is checked against.
 */
function webauthnOrigins(env: Env): Reader<readonly string[]> {
  return (value) => {
    const origins = (value ?? 'http://localhost:8080').split(',').map((part) => part.trim()).filter((part) => part !== '');
    if (origins.length === 0) throw new SettingProblem('must list at least one origin');
    let id: string;
    try {
      id = rpId(env.WEBAUTHN_RP_ID);
    } catch {
      return origins; // WEBAUTHN_RP_ID reports its own problem.
    }
    for (const origin of origins) {
      if (ANDROID_ORIGIN.test(origin)) continue;
      if (!URL.canParse(origin) || new URL(origin).origin !== origin) {
        throw new SettingProblem(`${JSON.stringify(origin)} is neither an origin such as https://app.example.com nor android:apk-key-hash:<43 base64url characters>`);
      }
      const { protocol, hostname } = new URL(origin);
      if (protocol !== 'https:' && !(protocol === 'http:' && hostname === 'localhost')) throw new SettingProblem(`${origin} must use https (http only on localhost)`);
      if (hostname !== id && !hostname.endsWith(`.${id}`)) throw new SettingProblem(`${origin} is not on the RP ID ${id} or one of its subdomains`);
    }
    return origins;
  };
}

/** `a, b,c` → ['a', 'b', 'c']; unset or blank: none. */
const idList: Reader<readonly string[]> = (value) => (value ?? '').split(',').map((part) => part.trim()).filter(Boolean);

type ProviderSetting = 'APPLE_CLIENT_IDS' | 'APPLE_TEAM_ID' | 'APPLE_KEY_ID' | 'GOOGLE_CLIENT_IDS' | 'WECHAT_APP_IDS' | 'SOCIAL_SECRET_ARN' | 'APPLE_API_URL' | 'GOOGLE_JWKS_URL' | 'WECHAT_API_URL' | 'PROVIDER_KEYS_COOLDOWN_SECONDS';

/** The providers' settings (see `Config`): a function, so that a bundle without providers drops it whole. */
type NotAuthorizerSetting = 'PASSWORD_HASH_COST' | 'REALTIME_URL' | 'REALTIME_MANAGEMENT_URL' | 'REALTIME_MAX_CONNECTION_SECONDS' | 'REALTIME_IDLE_SECONDS';
/** Settings the authorizer never reads: its bundle, which has a size goal of its own, carries none of them. */
const notAuthorizerReaders = (env: Env): { [K in NotAuthorizerSetting]: Reader<Config[K]> } => ({
  PASSWORD_HASH_COST: withDefault(passwordHashCost(env), OWASP_SCRYPT_COST),
  REALTIME_URL: optional(url),
  REALTIME_MANAGEMENT_URL: optional(url),
  REALTIME_MAX_CONNECTION_SECONDS: withDefault(wholeNumber(1, 7200), 7200),
  REALTIME_IDLE_SECONDS: withDefault(wholeNumber(1, 600), 600),
});

const providerReaders = (): { [K in ProviderSetting]: Reader<Config[K]> } => ({
  APPLE_CLIENT_IDS: idList,
  // Required with APPLE_CLIENT_IDS: the sign-in refuses to start without them (shared/identity/social/apple-client.ts).
  APPLE_TEAM_ID: optional(requiredText()),
  APPLE_KEY_ID: optional(requiredText()),
  GOOGLE_CLIENT_IDS: idList,
  WECHAT_APP_IDS: idList,
  SOCIAL_SECRET_ARN: optional(requiredText()),
  APPLE_API_URL: withDefault(url, 'https://appleid.apple.com'),
  GOOGLE_JWKS_URL: withDefault(url, 'https://www.googleapis.com/oauth2/v3/certs'),
  WECHAT_API_URL: withDefault(url, 'https://api.weixin.qq.com'),
  PROVIDER_KEYS_COOLDOWN_SECONDS: withDefault(wholeNumber(0), 30),
});

const positive = (fallback: number) => withDefault(wholeNumber(1), fallback);

type SpeechLimitSetting = 'SPEECH_PROVIDERS' | 'SPEECH_DAILY_SECONDS' | 'SPEECH_MONTHLY_SECONDS' | 'SPEECH_SESSION_MAX_SECONDS' | 'SPEECH_HEARTBEAT_SECONDS' | 'SPEECH_CONCURRENT_SESSIONS';
type SpeechIssuerSetting = 'SPEECH_PROVIDER_TIMEOUT_MS' | 'AZURE_SPEECH_REGION' | 'AZURE_SPEECH_STS_URL' | 'DEEPGRAM_API_URL' | 'AWS_TRANSCRIBE_REGION' | 'TENCENT_ASR_APP_ID' | 'SPEECH_SECRET_ARN';

/** Speech sessions' limits (docs/speech.md): a function, so that the authorizer's bundle drops it. */
const speechLimitReaders = (): { [K in SpeechLimitSetting]: Reader<Config[K]> } => ({
  SPEECH_PROVIDERS: speechProviders,
  SPEECH_DAILY_SECONDS: withDefault(wholeNumber(0, 31 * 86_400), 7_200),
  SPEECH_MONTHLY_SECONDS: withDefault(wholeNumber(0, 31 * 86_400), 108_000),
  SPEECH_SESSION_MAX_SECONDS: withDefault(wholeNumber(1, 86_400), 14_400),
  SPEECH_HEARTBEAT_SECONDS: withDefault(wholeNumber(1, 240), 60),
  SPEECH_CONCURRENT_SESSIONS: withDefault(wholeNumber(1, 20), 2),
});

/** The speech providers' addresses: only in the bundles of routes that issue credentials (`speech`). */
const speechIssuerReaders = (): { [K in SpeechIssuerSetting]: Reader<Config[K]> } => ({
  SPEECH_PROVIDER_TIMEOUT_MS: withDefault(wholeNumber(100, 8_000), 3_000),
  AZURE_SPEECH_REGION: withDefault((value) => {
    if (!/^[a-z0-9]+$/.test(value)) throw new SettingProblem('must be an Azure region name such as westeurope');
    return value;
  }, 'eastus'),
  AZURE_SPEECH_STS_URL: optional(url),
  DEEPGRAM_API_URL: withDefault(url, 'https://api.deepgram.com'),
  AWS_TRANSCRIBE_REGION: optional(requiredText()),
  TENCENT_ASR_APP_ID: optional((value) => {
    if (value === undefined || !/^\d+$/.test(value)) throw new SettingProblem('must be the numeric app id of Tencent Cloud');
    return value;
  }),
  SPEECH_SECRET_ARN: optional(requiredText()),
});


type PushSetting = 'APNS_TEAM_ID' | 'APNS_KEY_ID' | 'APNS_TOPIC' | 'APNS_URL' | 'FCM_URL' | 'FCM_TOKEN_URL' | 'PUSH_MIN_INTERVAL_SECONDS' | 'PUSH_SECRET_ARN';

/** The silent push's settings: only where pushes are sent (the fan-out; `BUNDLED_PUSH`, shared/bundle-defines.d.ts). */
const pushReaders = (): { [K in PushSetting]: Reader<Config[K]> } => ({
  APNS_TEAM_ID: optional(requiredText()),
  APNS_KEY_ID: optional(requiredText()),
  APNS_TOPIC: optional(requiredText()),
  APNS_URL: withDefault(url, 'https://api.push.apple.com'),
  FCM_URL: withDefault(url, 'https://fcm.googleapis.com'),
  FCM_TOKEN_URL: withDefault(url, 'https://oauth2.googleapis.com/token'),
  // 20 minutes: Apple's advice is two or three background pushes an hour; seconds in tests.
  PUSH_MIN_INTERVAL_SECONDS: withDefault(wholeNumber(1, 86_400), 1_200),
  PUSH_SECRET_ARN: optional(requiredText()),
});

/** `azure, tencent` -> ['azure', 'tencent']; unset or blank: none; an unknown name stops the start. */
const speechProviders: Reader<readonly SpeechProviderName[]> = (value) => {
  const names = idList(value);
  const unknown = names.filter((name) => !(SPEECH_PROVIDER_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0) throw new SettingProblem(`${unknown.join(', ')}: each must be one of ${SPEECH_PROVIDER_NAMES.join(', ')}`);
  return [...new Set(names)] as SpeechProviderName[];
};
const text = (fallback: string) => withDefault(requiredText(), fallback);

const readers = (env: Env): { [K in keyof Config]: Reader<Config[K]> } => ({
  TABLE_NAME: requiredText(),
  DYNAMODB_ENDPOINT: optional(url),
  AWS_REGION: text('us-east-1'),
  TOKEN_TTL_MS: positive(86_400_000),
  // 0-60, as Amazon Cognito's refresh-token grace period: long enough for an app's parallel or
  // retried refresh, short enough that a stolen token replayed later is caught as reuse.
  REFRESH_GRACE_SECONDS: withDefault(wholeNumber(0, 60), 30),
  SESSION_IDLE_DAYS: withDefault(wholeNumber(1, 3650), 30),
  SESSION_MAX_DAYS: withDefault(wholeNumber(1, 3650), 365),
  CODE_TTL_SECONDS: positive(600),
  CODE_RESEND_SECONDS: positive(60),
  CODE_DAILY_LIMIT: positive(10),
  AUTHORIZER_CACHE_SECONDS: withDefault(wholeNumber(0, 3600), 300),
  SMS_ALLOWED_COUNTRY_CODES: countryCallingCodes,
  JWT_ISSUER: text('captioning-api'),
  JWT_AUDIENCE: text('captioning-app'),
  JWT_SECRET_ARN: optional(requiredText()),
  // A rotated secret reaches every container within this; one Secrets Manager read per container
  // and period (a few cents a month).
  KEYS_MAX_AGE_SECONDS: withDefault(wholeNumber(1, 86_400), 300),
  SES_FROM_ADDRESS: optional(requiredText(3)),
  APP_NAME: withDefault(requiredText(1, 20), 'Captions'),
  CORS_ORIGINS: corsOrigins,
  LOG_LEVEL: withDefault(logLevel, 'info'),
  // 4 DynamoDB attempts of at most 1.5 s (plus < 1 s of backoff) end well inside the 10 s Lambda timeout.
  DYNAMODB_CONNECT_TIMEOUT_MS: withDefault(wholeNumber(50, 10_000), 1000),
  DYNAMODB_REQUEST_TIMEOUT_MS: withDefault(wholeNumber(50, 10_000), 1500),
  // 3 attempts (the SDK clients') of at most 2 s each; the signed reads make one attempt.
  AWS_CONNECT_TIMEOUT_MS: withDefault(wholeNumber(50, 10_000), 1000),
  AWS_REQUEST_TIMEOUT_MS: withDefault(wholeNumber(50, 10_000), 2000),
  SMS_MAX_PER_HOUR: positive(500),
  ACCOUNT_PURGE_BUDGET_MS: withDefault(wholeNumber(0, 60_000), 7_000),
  AUDIT_RETENTION_DAYS: withDefault(wholeNumber(1, 3650), 400),
  // Per client address on /api/verify-code/*, as the WAF rule's default on AWS.
  LOCAL_CODE_REQUESTS_PER_5_MINUTES: positive(DEFAULT_CODE_REQUESTS_PER_WINDOW),
  LOCAL_HEADERS_TIMEOUT_MS: withDefault(wholeNumber(100), 10_000),
  LOCAL_REQUEST_TIMEOUT_MS: withDefault(wholeNumber(100), 30_000),
  LOCAL_IDLE_TIMEOUT_MS: withDefault(wholeNumber(100), 30_000),
  LOCAL_MAX_CONNECTIONS: positive(256),
  LOCAL_JOB_INTERVAL_SECONDS: withDefault(wholeNumber(0, 86_400), 60),
  LOG_DEBUG_SAMPLE_RATE: withDefault(fraction, 0),
  SERVICE_NAME: text('captioning-local'),
  WEBAUTHN_RP_ID: rpId,
  WEBAUTHN_RP_NAME: withDefault(requiredText(1, 64), 'Captions'),
  WEBAUTHN_ORIGINS: webauthnOrigins(env),
  // 180 days: a device offline for half a year still syncs by changes; seconds in tests.
  RECORD_TOMBSTONE_RETENTION_SECONDS: withDefault(wholeNumber(1, 10 * 365 * 86_400), 180 * 86_400),
  // Everywhere but the authorizer, which reads none of them (shared/bundle-defines.d.ts).
  ...(typeof BUNDLED_AUTHORIZER === 'boolean' && BUNDLED_AUTHORIZER ? ({} as ReturnType<typeof notAuthorizerReaders>) : notAuthorizerReaders(env)),
  // The speech limits everywhere but the authorizer; the providers' addresses only where credentials are issued (shared/bundle-defines.d.ts).
  ...(typeof BUNDLED_SPEECH === 'string' && BUNDLED_SPEECH === 'none' ? ({} as ReturnType<typeof speechLimitReaders>) : speechLimitReaders()),
  ...(typeof BUNDLED_SPEECH === 'string' && BUNDLED_SPEECH !== 'issuer' ? ({} as ReturnType<typeof speechIssuerReaders>) : speechIssuerReaders()),
  // Only where a route talks to the providers (shared/bundle-defines.d.ts).
  ...(typeof BUNDLED_PROVIDERS === 'boolean' && !BUNDLED_PROVIDERS ? ({} as ReturnType<typeof providerReaders>) : providerReaders()),
  // Only where pushes are sent: no route's bundle, nor the authorizer's (shared/bundle-defines.d.ts).
  ...(typeof BUNDLED_PUSH === 'boolean' && !BUNDLED_PUSH ? ({} as ReturnType<typeof pushReaders>) : pushReaders()),
});

export function parseConfig(env: Env): Config {
  const parsed: Partial<Record<keyof Config, unknown>> = {};
  const problems: string[] = [];
  for (const [name, read] of Object.entries(readers(env)) as [keyof Config, Reader<unknown>][]) {
    try {
      parsed[name] = read(env[name]);
    } catch (error) {
      if (!(error instanceof SettingProblem)) throw error;
      problems.push(`${name}: ${error.message}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  return parsed as Config;
}
