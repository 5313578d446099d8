/**
 * Business metrics: what the domain counts, with the few dimensions the dashboard and alarms need.
 * Domain code calls `ctx.metrics.count(...)`; the HTTP wrapper hands the invocation's counts to a
 * sink once, when the invocation ends (CloudWatch EMF on Lambda, `/dev/metrics` locally).
 */
export const METRIC_NAMESPACE = 'CaptioningService';

/** Every metric, with the dimension it is broken down by (if any); nothing else may be counted. */
export const METRICS = {
  /** A code handed to SES or SNS. */
  CodesSent: 'channel',
  /** An SMS code handed to SNS, by country calling code (only allowed countries get SMS). */
  SmsCodesSentByCountry: 'country',
  /** SES or SNS refused or failed a code (the caller got 503). */
  CodeDeliveryFailures: 'channel',
  /** A submitted code was wrong, spent, expired or out of tries. */
  CodeVerificationsFailed: undefined,
  /** A session opened or refreshed: code, password, passkey, refresh, apple, google or wechat. */
  SignIns: 'method',
  /**
   * A social sign-in refused, by reason: `invalid-credential` (SOCIAL_CREDENTIAL_INVALID),
   * `link-required` (ACCOUNT_EXISTS_LINK_REQUIRED), `provider-unavailable` (503). A spike of the
   * first is someone trying forged tokens (the dashboard shows each reason, infra/constructs/dashboard.ts).
   */
  SocialSignInsRefused: 'reason',
  /** A social identity linked to an account that existed (by e-mail at sign-in, or from the settings). */
  SocialIdentitiesLinked: 'method',
  /** An Apple refresh token of a deleted account revoked at Apple (the job revoke-apple-tokens). */
  AppleTokensRevoked: undefined,
  /**
   * A recorded Apple revocation given up on after APPLE_REVOCATION_LIMIT_DAYS of failures: the
   * person's authorization may still stand at Apple (an alarm watches it, docs/operating.md).
   */
  AppleRevocationsAbandoned: undefined,
  /** Password login (or a password check) locked after too many failures. */
  LoginLockouts: undefined,
  /** A spent refresh token came back: someone holds a copy; its session was ended. */
  RefreshTokenReuse: undefined,
  AccountsCreated: undefined,
  AccountsDeleted: undefined,
  RecordsSaved: undefined,
  EventsRecorded: undefined,
  /** The first invocation of a function container. */
  ColdStart: undefined,
  /** A request to the admin API (issue 37) that reached its function, by operation (`disable`, `find-user` ...). */
  AdminRequests: 'operation',
  /** The same, by the kind of IAM principal that signed it (`assumed-role`, `user`, `root`, `local` ...). */
  AdminRequestsByActor: 'actorKind',
  /** An account deleted or disabled by support: the alarm on a stolen support credential counts these. */
  AdminAccountRemovals: undefined,
  /** The live channel (docs/realtime.md): a WebSocket connection admitted by its ticket. */
  RealtimeConnectionsOpened: undefined,
  /** A connection refused, by reason: `ticket` (spent, expired or forged), `session-ended`. */
  RealtimeConnectionsRefused: 'reason',
  /** A poke (`{"type":"changes"}`) sent to one connection. */
  RealtimePokesSent: undefined,
  /** A send found its connection gone (API Gateway's GoneException, a closed socket locally): the item was removed. */
  RealtimeGoneConnections: undefined,
  /** A connection closed because its session ended (sign-out, disable, password change ...). */
  RealtimeSessionsClosed: undefined,
  /** The silent push (docs/realtime.md#the-silent-push), by provider (`apns`, `fcm`): a push the provider accepted. */
  PushesSent: 'provider',
  /** A push token the provider reported dead (APNs 410 or BadDeviceToken, FCM UNREGISTERED): removed from its session. */
  PushTokensRemoved: 'provider',
  /** A push the provider refused otherwise, or did not answer in time, or no key to send with: nothing retried (the app pulls on its next open). */
  PushFailures: 'provider',
  /** Speech sessions (issue 44, docs/speech.md), by provider: sessions started (not repeats). */
  SpeechSessionsStarted: 'provider',
  /** Seconds charged to speech sessions (the sum is the minutes the providers will bill). */
  SpeechSecondsCharged: 'provider',
  /** A provider gave no credential: timed out, unreachable, 5xx, or refused the key (503 to the person). */
  SpeechProviderFailures: 'provider',
  /** A provider refused the service's own key (401/403), or the deployment has none: an operator must act (alarmed). */
  SpeechKeysRefused: 'provider',
  /** A start or renewal refused (or a session ended) for spent minutes: SPEECH_QUOTA_EXHAUSTED. */
  SpeechQuotaRefusals: 'provider',
} as const satisfies Record<string, MetricDimension | undefined>;

export type MetricDimension = 'channel' | 'country' | 'method' | 'operation' | 'actorKind' | 'reason' | 'provider';
export type MetricName = keyof typeof METRICS;

/** The dimension value a metric takes; metrics without a dimension take none. */
type DimensionArgument<N extends MetricName> = (typeof METRICS)[N] extends MetricDimension ? [value: string] : [];

export interface Metrics {
  /** Counts one occurrence (in this invocation) of a business event. */
  count<N extends MetricName>(name: N, ...dimension: DimensionArgument<N>): void;
  /** Adds an amount (seconds charged) rather than one occurrence; defaults to nothing where a sink only counts. */
  add?<N extends MetricName>(name: N, amount: number, ...dimension: DimensionArgument<N>): void;
}

/** One metric's total in one invocation. */
export interface MetricCount {
  name: MetricName;
  /** `{ channel: 'sms' }`, or empty. */
  dimensions: Partial<Record<MetricDimension, string>>;
  value: number;
}

/** Where an invocation's counts go. */
export interface MetricSink {
  publish(counts: readonly MetricCount[]): void;
}

/** The counts of one invocation, summed per metric and dimension value until they are published. */
export class InvocationMetrics implements Metrics {
  readonly #counts = new Map<string, MetricCount>();

  count<N extends MetricName>(name: N, ...dimension: DimensionArgument<N>): void {
    this.add(name, 1, ...dimension);
  }

  add<N extends MetricName>(name: N, amount: number, ...dimension: DimensionArgument<N>): void {
    const key = METRICS[name] as MetricDimension | undefined;
    const value = dimension[0];
    const id = `${name}\u0000${value ?? ''}`;
    const existing = this.#counts.get(id);
    if (existing) existing.value += amount;
    else this.#counts.set(id, { name, dimensions: key && value !== undefined ? { [key]: value } : {}, value: amount });
  }

  /** The counts so far, and a fresh start: each count is published once. */
  drain(): MetricCount[] {
    const counts = [...this.#counts.values()];
    this.#counts.clear();
    return counts;
  }
}

/** For operations that run outside a request (jobs, tests that do not look at metrics). */
export const uncounted: Metrics = { count: () => undefined };
