import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import { DEFAULT_CODE_REQUESTS_PER_WINDOW, parseConfig } from '../shared/config';
import type { Config } from '../shared/config';
import type { BusinessAlarmThresholds } from './constructs/business-alarms';

export type StageName = 'dev' | 'prod';

/** A gateway throttle bucket: steady requests per second and burst. */
export interface Throttle {
  rateLimit: number;
  burstLimit: number;
}

/** Everything the stack needs to know about one deployment. */
export interface StageSettings {
  stage: StageName;
  /** The service settings every function receives as environment variables (shared/config.ts). */
  environment: Record<string, string>;
  /**
   * The providers' settings (Sign in with Apple, Google and WeChat, docs/social-sign-in.md), which
   * only the functions of routes with `providers` receive (`PROVIDER_SETTINGS`).
   */
  providerEnvironment: Record<string, string>;
  /** Apple or WeChat is offered: the stack makes the provider secret for their keys (infra/stack.ts). */
  providerSecret: boolean;
  /**
   * The silent push (docs/realtime.md#the-silent-push, `-c silentPush=true`): its settings
   * (`PUSH_SETTINGS`) go to the live channel's fan-out only, and the stack makes the push secret
   * (APNs' key, FCM's service account) that only the fan-out reads.
   */
  push: boolean;
  pushEnvironment: Record<string, string>;
  /** The speech providers' addresses, for the functions of routes with `speech` only (`SPEECH_SETTINGS`). */
  speechEnvironment: Record<string, string>;
  /** Azure, Deepgram or Tencent is offered: the stack makes the speech secret for their keys. */
  speechSecret: boolean;
  /** Amazon Transcribe is offered: the speech functions may start its streams. */
  transcribe: boolean;
  config: Config;
  authorizerCache: Duration;
  /** Where codes are e-mailed from: the address and the identities SES may authorise it through. */
  ses?: { fromAddress: string; identities: string[] };
  removalPolicy: RemovalPolicy;
  deletionProtection: boolean;
  logRetention: RetentionDays;
  throttle: Throttle;
  /** The per-method limit of routes marked `throttle: 'strict'` in the route table. */
  strictThrottle: Throttle;
  /** The per-method limit of the support team's `/admin` routes (`throttle: 'admin'`). */
  adminThrottle: Throttle;
  waf?: { codeRequestsPer5MinutesPerIp: number };
  /** An existing SNS topic the alarms notify. */
  alarmTopicArn?: string;
  /** Thresholds of the business alarms (infra/constructs/business-alarms.ts). */
  businessAlarms: BusinessAlarmThresholds;
  /**
   * `-c maintenance=true`: the stage without its routes, every path answering 503 with
   * Retry-After: the first of the two deployments that move a stage made before the nested
   * stacks (docs/deploying.md). Off unless asked for.
   */
  maintenance: boolean;
}

/**
 * Per-stage defaults. Dev is disposable and chatty; prod keeps its data when the stack goes
 * and logs less. Every value can be overridden through context (see docs/deploying.md).
 */
const STAGES: Record<StageName, Omit<StageSettings, 'stage' | 'environment' | 'providerEnvironment' | 'providerSecret' | 'push' | 'pushEnvironment' | 'speechEnvironment' | 'speechSecret' | 'transcribe' | 'config' | 'authorizerCache' | 'ses' | 'waf' | 'alarmTopicArn' | 'businessAlarms' | 'maintenance'> & { logLevel: Config['LOG_LEVEL'] }> = {
  dev: {
    removalPolicy: RemovalPolicy.DESTROY,
    deletionProtection: false,
    logRetention: RetentionDays.ONE_WEEK,
    throttle: { rateLimit: 20, burstLimit: 40 },
    strictThrottle: { rateLimit: 2, burstLimit: 5 },
    adminThrottle: { rateLimit: 2, burstLimit: 5 },
    logLevel: 'debug',
  },
  prod: {
    removalPolicy: RemovalPolicy.RETAIN,
    deletionProtection: true,
    logRetention: RetentionDays.THREE_MONTHS,
    throttle: { rateLimit: 200, burstLimit: 400 },
    strictThrottle: { rateLimit: 10, burstLimit: 20 },
    adminThrottle: { rateLimit: 5, burstLimit: 10 },
    logLevel: 'info',
  },
};

/**
 * The service settings (contract section 5 and shared/config.ts) that a deployment passes to the
 * functions. Context keys have the same names as the environment variables, so a value means the
 * same thing locally and on AWS: `-c CODE_DAILY_LIMIT=5`.
 */
export const SERVICE_SETTINGS = [
  'TOKEN_TTL_MS',
  'REFRESH_GRACE_SECONDS',
  'SESSION_IDLE_DAYS',
  'SESSION_MAX_DAYS',
  'CODE_TTL_SECONDS',
  'CODE_RESEND_SECONDS',
  'CODE_DAILY_LIMIT',
  'AUTHORIZER_CACHE_SECONDS',
  'KEYS_MAX_AGE_SECONDS',
  'SMS_ALLOWED_COUNTRY_CODES',
  'SMS_MAX_PER_HOUR',
  'JWT_ISSUER',
  'JWT_AUDIENCE',
  'SES_FROM_ADDRESS',
  'APP_NAME',
  'CORS_ORIGINS',
  'LOG_LEVEL',
  'DYNAMODB_CONNECT_TIMEOUT_MS',
  'DYNAMODB_REQUEST_TIMEOUT_MS',
  'AWS_CONNECT_TIMEOUT_MS',
  'AWS_REQUEST_TIMEOUT_MS',
  'LOG_DEBUG_SAMPLE_RATE',
  // Passkeys (docs/passkeys.md): `-c WEBAUTHN_RP_ID=example.com -c WEBAUTHN_ORIGINS=https://example.com,android:apk-key-hash:...`
  'WEBAUTHN_RP_ID',
  'WEBAUTHN_RP_NAME',
  'WEBAUTHN_ORIGINS',
  // The admin API's audit trail (issue 37): only its functions receive it (ADMIN_SETTINGS).
  'AUDIT_RETENTION_DAYS',
  // Speech sessions (docs/speech.md): the providers offered and the limits, which the quota's readers
  // (the summary, the admin view) need as well as the speech functions.
  'SPEECH_PROVIDERS',
  'SPEECH_DAILY_SECONDS',
  'SPEECH_MONTHLY_SECONDS',
  'SPEECH_SESSION_MAX_SECONDS',
  'SPEECH_HEARTBEAT_SECONDS',
  'SPEECH_CONCURRENT_SESSIONS',
] as const satisfies readonly (keyof Config)[];

/**
 * The speech providers' addresses (docs/speech.md): only the functions of routes with `speech`
 * receive them. The keys are no settings: they go into the speech secret the stack makes
 * (`SPEECH_SECRET_ARN`).
 */
export const SPEECH_SETTINGS = ['SPEECH_PROVIDER_TIMEOUT_MS', 'AZURE_SPEECH_REGION', 'AZURE_SPEECH_STS_URL', 'DEEPGRAM_API_URL', 'AWS_TRANSCRIBE_REGION', 'TENCENT_ASR_APP_ID'] as const satisfies readonly (keyof Config)[];

/**
 * Sign in with Apple, Google and WeChat (docs/social-sign-in.md): context keys as the environment
 * variables (`-c APPLE_CLIENT_IDS=com.example.app,com.example.web`), given only to the functions of
 * routes with `providers` (shared/routes.ts). The secrets are no settings: Apple's private key and
 * WeChat's app secrets go into the provider secret the stack makes (`SOCIAL_SECRET_ARN`).
 */
export const PROVIDER_SETTINGS = [
  'APPLE_CLIENT_IDS',
  'APPLE_TEAM_ID',
  'APPLE_KEY_ID',
  'GOOGLE_CLIENT_IDS',
  'WECHAT_APP_IDS',
  'APPLE_API_URL',
  'GOOGLE_JWKS_URL',
  'WECHAT_API_URL',
  'PROVIDER_KEYS_COOLDOWN_SECONDS',
] as const satisfies readonly (keyof Config)[];

/**
 * The silent push (docs/realtime.md#the-silent-push): context keys as the environment variables,
 * given only to the live channel's fan-out, and only with `-c silentPush=true`. The keys are no
 * settings: `apnsPrivateKey` and `fcmServiceAccount` go into the push secret (`PUSH_SECRET_ARN`).
 */
export const PUSH_SETTINGS = ['APNS_TEAM_ID', 'APNS_KEY_ID', 'APNS_TOPIC', 'APNS_URL', 'FCM_URL', 'FCM_TOKEN_URL', 'PUSH_MIN_INTERVAL_SECONDS'] as const satisfies readonly (keyof Config)[];

/** Settings only the support team's `/admin` functions (`auth: 'iam'`) read: the others do not receive them. */
export const ADMIN_SETTINGS: readonly (typeof SERVICE_SETTINGS)[number][] = ['AUDIT_RETENTION_DAYS'];

/** `no-reply@example.com` or `Captions <no-reply@example.com>`: display name, address, domain. */
const FROM_ADDRESS = /^(?:([^<>]*)<\s*)?([^\s<>@]+@([^\s<>@]+\.[^\s<>@]+))\s*>?$/;

/**
 * The sender as the functions send it and as the IAM condition names it, from one value: the
 * address lower-cased (SES identities are case-insensitive, but the `ses:FromAddress` condition
 * compares case-sensitively), the display name kept. `Captions <No-Reply@Example.com>` ->
 * `Captions <no-reply@example.com>`, condition `no-reply@example.com`.
 */
function normaliseSender(value: string): { source: string; fromAddress: string; domain: string } | undefined {
  const match = FROM_ADDRESS.exec(value);
  if (!match) return undefined;
  const name = match[1]?.trim();
  const fromAddress = match[2]!.toLowerCase();
  return { source: name ? `${name} <${fromAddress}>` : fromAddress, fromAddress, domain: match[3]!.toLowerCase() };
}

function text(node: Node, key: string): string | undefined {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new Error(`Context value ${key} must be a string, number or boolean`);
}

function flag(node: Node, key: string, fallback = false): boolean {
  const value = text(node, key);
  if (value === undefined) return fallback;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new Error(`Context value ${key} must be true or false, not ${value}`);
}

function positive(node: Node, key: string, fallback: number): number {
  const value = text(node, key);
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new Error(`Context value ${key} must be a positive number, not ${value}`);
  return number;
}

function throttle(node: Node, prefix: string, fallback: Throttle): Throttle {
  return {
    rateLimit: positive(node, `${prefix}RateLimit`, fallback.rateLimit),
    burstLimit: Math.floor(positive(node, `${prefix}BurstLimit`, fallback.burstLimit)),
  };
}

/** WAF rate rules count over 5 minutes and accept limits from 10 up. */
function wafLimit(node: Node): number {
  const limit = positive(node, 'wafCodeRequestsPer5Minutes', DEFAULT_CODE_REQUESTS_PER_WINDOW);
  if (!Number.isInteger(limit) || limit < 10) throw new Error(`Context value wafCodeRequestsPer5Minutes must be a whole number of at least 10, not ${limit}`);
  return limit;
}

/**
 * Business alarm thresholds when context sets none: a few hundred SMS an hour is far above a
 * young app's sign-ins and far below what a pumping attack sends; 20 lockouts an hour is more
 * than forgetful people cause.
 */
export const DEFAULT_BUSINESS_ALARMS: BusinessAlarmThresholds = { smsCodesPerHour: 300, loginLockoutsPerHour: 20, adminRemovalsPerHour: 10, socialRefusalsPer15Minutes: 50 };

/** The `service` dimension of a stage's business metrics (shared/config.ts SERVICE_NAME). */
export const serviceNameOf = (stage: StageName): string => `captioning-${stage}`;

/**
 * Reads the deployment's settings from CDK context (`cdk.json` and `-c key=value`). The service
 * settings are validated with the functions' own config schema now, so that a bad value fails
 * `cdk synth` rather than the first cold start after a deployment.
 */
export function readStageSettings(node: Node): StageSettings {
  const stage = text(node, 'stage') ?? 'dev';
  if (stage !== 'dev' && stage !== 'prod') throw new Error(`Context value stage must be dev or prod, not ${stage}`);
  const defaults = STAGES[stage];

  // SERVICE_NAME is the stage's, not a context value: the business alarms select metrics by it.
  const environment: Record<string, string> = { LOG_LEVEL: defaults.logLevel, SERVICE_NAME: serviceNameOf(stage) };
  for (const key of SERVICE_SETTINGS) {
    const value = text(node, key);
    if (value !== undefined) environment[key] = value;
  }
  const providerEnvironment: Record<string, string> = {};
  for (const key of PROVIDER_SETTINGS) {
    const value = text(node, key);
    if (value !== undefined) providerEnvironment[key] = value;
  }
  const speechEnvironment: Record<string, string> = {};
  for (const key of SPEECH_SETTINGS) {
    const value = text(node, key);
    if (value !== undefined) speechEnvironment[key] = value;
  }
  const push = flag(node, 'silentPush');
  const pushEnvironment: Record<string, string> = {};
  for (const key of PUSH_SETTINGS) {
    const value = text(node, key);
    if (value !== undefined) pushEnvironment[key] = value;
  }
  // TABLE_NAME is the stack's to set; a placeholder lets the schema check everything else.
  const config = parseConfig({ ...environment, ...providerEnvironment, ...speechEnvironment, ...pushEnvironment, TABLE_NAME: 'validated-at-synth' });
  // Every effective value goes into the functions' environment, so the template shows them all
  // (an empty list of client ids: the provider is not offered, and the variable is left out).
  const effective = (keys: readonly (keyof Config)[], into: Record<string, string>) => {
    for (const key of keys) {
      const value = config[key];
      if (value === undefined || (Array.isArray(value) && value.length === 0)) delete into[key];
      else into[key] = Array.isArray(value) ? value.join(',') : String(value);
    }
  };
  effective(SERVICE_SETTINGS, environment);
  effective(PROVIDER_SETTINGS, providerEnvironment);
  effective(SPEECH_SETTINGS, speechEnvironment);
  effective(PUSH_SETTINGS, pushEnvironment);
  // APNs' provider JWT names the team and the key, and each push the app's topic: all three or none.
  const apnsSettings = [config.APNS_TEAM_ID, config.APNS_KEY_ID, config.APNS_TOPIC].filter((value) => value !== undefined).length;
  if (apnsSettings !== 0 && apnsSettings !== 3) throw new Error('APNs pushes need -c APNS_TEAM_ID=..., -c APNS_KEY_ID=... and -c APNS_TOPIC=... together (docs/realtime.md#the-silent-push)');
  if (config.SPEECH_PROVIDERS.includes('tencent') && !config.TENCENT_ASR_APP_ID) {
    throw new Error('Tencent speech (SPEECH_PROVIDERS) needs -c TENCENT_ASR_APP_ID=... (docs/speech.md)');
  }
  // Apple's client secret is a JWT signed with the key APPLE_KEY_ID names, issued by APPLE_TEAM_ID.
  if (config.APPLE_CLIENT_IDS.length > 0 && (!config.APPLE_TEAM_ID || !config.APPLE_KEY_ID)) {
    throw new Error('Sign in with Apple (APPLE_CLIENT_IDS) needs -c APPLE_TEAM_ID=... and -c APPLE_KEY_ID=... (docs/social-sign-in.md)');
  }

  let ses: StageSettings['ses'];
  if (config.SES_FROM_ADDRESS !== undefined) {
    const sender = normaliseSender(config.SES_FROM_ADDRESS);
    if (!sender) throw new Error(`SES_FROM_ADDRESS must be an e-mail address, optionally with a display name: ${config.SES_FROM_ADDRESS}`);
    // The functions send exactly the address the condition allows (see normaliseSender).
    environment.SES_FROM_ADDRESS = config.SES_FROM_ADDRESS = sender.source;
    // SES authorises a send through the verified address itself or through its domain.
    ses = { fromAddress: sender.fromAddress, identities: [sender.fromAddress, sender.domain] };
  } else if (stage === 'prod') {
    throw new Error('A prod deployment needs -c SES_FROM_ADDRESS=<verified SES address>: without it no e-mail code can be sent');
  }

  return {
    stage,
    environment,
    providerEnvironment,
    // Google needs no secret: its ID tokens are checked against its public keys alone. The silent
    // push's keys are not in it: they have a secret of their own, the fan-out's alone (infra/stack.ts).
    providerSecret: config.APPLE_CLIENT_IDS.length > 0 || config.WECHAT_APP_IDS.length > 0,
    push,
    pushEnvironment,
    speechEnvironment,
    speechSecret: config.SPEECH_PROVIDERS.some((provider) => provider !== 'aws'),
    transcribe: config.SPEECH_PROVIDERS.includes('aws'),
    config,
    authorizerCache: Duration.seconds(config.AUTHORIZER_CACHE_SECONDS),
    ses,
    removalPolicy: defaults.removalPolicy,
    deletionProtection: defaults.deletionProtection,
    logRetention: defaults.logRetention,
    throttle: throttle(node, 'throttle', defaults.throttle),
    strictThrottle: throttle(node, 'strictThrottle', defaults.strictThrottle),
    adminThrottle: throttle(node, 'adminThrottle', defaults.adminThrottle),
    // On in every stage unless turned off (-c waf=false): without it one client could drain code sending for everyone.
    waf: flag(node, 'waf', true) ? { codeRequestsPer5MinutesPerIp: wafLimit(node) } : undefined,
    alarmTopicArn: text(node, 'alarmTopicArn'),
    maintenance: flag(node, 'maintenance'),
    businessAlarms: {
      smsCodesPerHour: positive(node, 'alarmSmsCodesPerHour', DEFAULT_BUSINESS_ALARMS.smsCodesPerHour),
      loginLockoutsPerHour: positive(node, 'alarmLoginLockoutsPerHour', DEFAULT_BUSINESS_ALARMS.loginLockoutsPerHour),
      adminRemovalsPerHour: positive(node, 'alarmAdminRemovalsPerHour', DEFAULT_BUSINESS_ALARMS.adminRemovalsPerHour),
      socialRefusalsPer15Minutes: positive(node, 'alarmSocialRefusalsPer15Minutes', DEFAULT_BUSINESS_ALARMS.socialRefusalsPer15Minutes),
    },
  };
}
