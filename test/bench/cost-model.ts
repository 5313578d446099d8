import * as z from 'zod';
import type { AuthorizerMeasure, OperationMeasure } from './cost-measure';
import type { DeploymentInventory } from './cost-deployment';
import { round } from './stats';

/**
 * The cost model of npm run cost: measured figures per operation (cost-measure.ts) times the
 * prices (cost/prices.json), weighted by a usage profile (cost/usage-profile.json). Pure
 * functions, so the arithmetic is tested on its own (test/unit/cost-model.test.ts).
 */
const priceSchema = z.object({
  usd: z.number().nonnegative(),
  source: z.url(),
  readIn: z.url().optional(),
  date: z.iso.date(),
  verified: z.boolean(),
  note: z.string().optional(),
});

export const pricesSchema = z.object({
  currency: z.literal('USD'),
  region: z.string(),
  prices: z.object({
    apiGatewayRestPerMillionRequests: priceSchema,
    lambdaPerMillionRequests: priceSchema,
    lambdaArmPerGbSecond: priceSchema,
    dynamoDbPerMillionReadUnits: priceSchema,
    dynamoDbPerMillionWriteUnits: priceSchema,
    dynamoDbStoragePerGbMonth: priceSchema,
    cloudWatchLogsIngestionPerGb: priceSchema,
    xRayPerMillionTracesRecorded: priceSchema,
    secretsManagerPer10kApiCalls: priceSchema,
    secretsManagerPerSecretMonth: priceSchema,
    wafPerMillionRequests: priceSchema,
    wafPerWebAclMonth: priceSchema,
    wafPerRuleMonth: priceSchema,
    cloudWatchPerAlarmMonth: priceSchema,
    cloudWatchPerCompositeAlarmMonth: priceSchema,
    cloudWatchPerDashboardMonth: priceSchema,
    cloudWatchPerCustomMetricMonth: priceSchema,
    dataTransferOutPerGb: priceSchema,
    sesPerEmail: priceSchema,
    apiGatewayWebSocketPerMillionMessages: priceSchema,
    apiGatewayWebSocketPerMillionConnectionMinutes: priceSchema,
    dynamoDbStreamsPerMillionReadsByLambda: priceSchema,
  }),
  /**
   * Issue 44: what each speech provider charges per hour of audio streamed, by provider name
   * (shared/config.ts SPEECH_PROVIDER_NAMES): the list price of the first volume tier.
   */
  speechPerHour: z.record(z.string(), priceSchema),
  smsPerMessage: z.record(z.string().regex(/^[A-Z]{2}$/), priceSchema),
  anchors: z.array(
    z.object({
      name: z.string(),
      perThousandMauUsd: z.number().nullable(),
      at10kMauPerThousandUsd: z.number().nullable(),
      at100kMauPerThousandUsd: z.number().nullable(),
      source: z.url(),
      readIn: z.url().optional(),
      date: z.iso.date(),
      note: z.string(),
    }),
  ),
});
export type Prices = z.infer<typeof pricesSchema>;

export const profileSchema = z.object({
  name: z.string(),
  /** The scale the figures are computed at (X-Ray sampling depends on the request rate). */
  mau: z.number().positive(),
  callsPerUserPerMonth: z.record(z.string(), z.number().nonnegative()),
  /** App opens a month: each opens a window of the authorizer cache per token. */
  sessionsPerUserPerMonth: z.number().nonnegative(),
  minutesPerSession: z.number().positive(),
  /** Share of invocations that start a new container. */
  coldStartShare: z.number().min(0).max(1),
  /**
   * Containers each function keeps warm at this scale: each reads the root secret again once its
   * copy is older than KEYS_MAX_AGE_SECONDS and a request comes (shared/ports/secrets.ts).
   */
  warmContainersPerFunction: z.number().nonnegative(),
  /** How long stored data stays, on average: the table holds this many months of each user's writes. */
  dataRetainedMonths: z.number().nonnegative(),
  /** Which channel verification codes go by: e-mail, and SMS by country (ISO code). Shares sum to 1. */
  codeChannels: z.object({ email: z.number().min(0).max(1), sms: z.record(z.string(), z.number().min(0).max(1)) }),
  /**
   * Share (0 to 1) of the monthly sign-ins made with a passkey instead of a code (issue 30). The
   * code sign-in calls of `callsPerUserPerMonth` stand for every sign-in; this share of them goes
   * to the passkey sign-in routes instead, and sends no message (withPasskeyShare). Absent: 0.
   */
  passkeySignInShare: z.number().min(0).max(1).optional(),
  /**
   * Share (0 to 1) of the monthly sign-ins made with Apple, Google or WeChat instead of a code
   * (issue 38), and how they split among the three (`providers`, shares summing to 1). Like the
   * passkey share, that share of the code sign-in calls goes to the provider's sign-in route
   * (Apple and Google after a nonce) and sends no message (withSignInShares). Absent: 0.
   */
  socialSignIns: z
    .object({
      share: z.number().min(0).max(1),
      providers: z.object({ apple: z.number().min(0).max(1), google: z.number().min(0).max(1), wechat: z.number().min(0).max(1) }),
    })
    .optional(),
  /**
   * Issue 44: the hours a person captions a month (audio streamed to a speech provider) in this
   * many sessions, and why that figure. The speech routes' calls follow from it (withDerivedCalls):
   * a start and an end per session, a renewal every SPEECH_HEARTBEAT_SECONDS in between; the
   * profile does not list them itself.
   */
  captioning: z
    .object({
      hoursPerUserPerMonth: z.number().nonnegative(),
      sessionsPerUserPerMonth: z.number().positive(),
      why: z.string().min(1),
    })
    .optional(),
  /**
   * Issue 45: the live channel. Each app open holds one connection for its minutes
   * (`sessionsPerUserPerMonth` x `minutesPerSession`: the profile's hours of open apps, one fact);
   * a change of a record pokes this many open connections of its account, and the stream hands
   * the fan-out this many changes per batch. The ticket requests follow (withDerivedCalls).
   */
  liveChannel: z
    .object({
      connectionsPokedPerChange: z.number().nonnegative(),
      changesPerFanOutBatch: z.number().positive(),
      why: z.string().min(1),
    })
    .optional(),
});
export type UsageProfile = z.infer<typeof profileSchema>;

/** The ticket an app asks for before each connection of the live channel (issue 45). */
export const REALTIME_TICKET = 'POST /api/realtime/ticket';
/** The routes whose calls write a change-feed entry, which pokes the account's open connections. */
export const CHANGE_OPERATIONS = ['POST /api/transcriptions', 'PATCH /api/transcriptions/{id}', 'DELETE /api/transcriptions/{id}'];

/**
 * What the live channel's functions do per event (docs/realtime.md): the figures the model
 * multiplies the profile's connections, pings and changes by. The DynamoDB units are measured
 * against DynamoDB Local and held there (test/integration/live-channel-cost.test.ts); the
 * milliseconds and log bytes are estimates (the functions are not routes: npm run cost does not
 * time them).
 */
export const LIVE_CHANNEL_WORK = {
  /** The client pings every 5 minutes (client/src/realtime.ts) and gets a pong: two messages. */
  pingMinutes: 5,
  /** API Gateway closes a connection after 2 hours; the client opens a new one before. */
  maxConnectionMinutes: 120,
  /** Billed milliseconds per invocation: a ping answered, $connect accepted, $disconnect's delete. */
  connectionMs: { ping: 3, connect: 3, disconnect: 12 },
  /** The $connect authorizer: one transaction (the ticket deleted, the profile checked, the connection put). */
  authorizerMs: 25,
  /** A fan-out batch: two reads per changed account, one management-API send per connection. */
  fanOutMs: 45,
  /** Write units of the authorizer's transaction as DynamoDB bills it: three items, two units each. */
  admitWriteUnits: 6,
  /** $disconnect deletes the connection's item: one unit. */
  disconnectWriteUnits: 1,
  /** The fan-out reads an account's connections (a query) and its profile: one unit each. */
  fanOutReadUnitsPerAccount: 2,
  /** A WebSocket access-log line (the stage's format filled in), per connect, disconnect and message in. */
  accessLogBytes: 260,
} as const;

/** Issue 45: the live channel's month, per user, and its price per 1 000 MAU by part. */
export interface LiveChannelCost {
  openHoursPerUserPerMonth: number;
  connectionsPerUserPerMonth: number;
  changesPerUserPerMonth: number;
  connectionsPokedPerChange: number;
  messagesPerUserPerMonth: { pokes: number; pingsAndPongs: number };
  invocationsPerUserPerMonth: { connection: number; authorizer: number; fanOut: number };
  perThousandMauUsd: { messages: number; connectionMinutes: number; lambda: number; dynamoDb: number; streamReads: number; logs: number; total: number };
  /** One change: its share of a fan-out batch and a poke to each connection it reaches. */
  usdPerMillionChanges: number;
  /** One hour of an open app: 60 connection-minutes, its pings and pongs and the function answering the pings. */
  usdPerMillionConnectionHours: number;
}

const GIB_BYTES = 1024 ** 3;

/** The live channel's month for one user (issue 45), or nothing when the profile has no live channel. */
export function liveChannelCost(profile: UsageProfile, prices: Prices['prices'], settings: Pick<ModelSettings, 'liveChannelMemoryMb' | 'liveChannelLogBytesPerInvocation'>): LiveChannelCost | undefined {
  const live = profile.liveChannel;
  if (!live) return undefined;
  const work = LIVE_CHANNEL_WORK;
  const message = prices.apiGatewayWebSocketPerMillionMessages.usd / 1e6;
  const connectionMinute = prices.apiGatewayWebSocketPerMillionConnectionMinutes.usd / 1e6;
  const invocation = (ms: number) => prices.lambdaPerMillionRequests.usd / 1e6 + (settings.liveChannelMemoryMb / 1024) * (Math.ceil(ms) / 1000) * prices.lambdaArmPerGbSecond.usd;
  const logLine = (bytes: number) => (bytes / GIB_BYTES) * prices.cloudWatchLogsIngestionPerGb.usd;
  const invocationLog = logLine(settings.liveChannelLogBytesPerInvocation);

  const openMinutes = profile.sessionsPerUserPerMonth * profile.minutesPerSession;
  const connections = profile.sessionsPerUserPerMonth * Math.ceil(profile.minutesPerSession / work.maxConnectionMinutes);
  const changes = CHANGE_OPERATIONS.reduce((sum, id) => sum + (profile.callsPerUserPerMonth[id] ?? 0), 0);
  const pings = openMinutes / work.pingMinutes;
  const pokes = changes * live.connectionsPokedPerChange;
  // Each change's entry reaches the fan-out, and so does each $disconnect's removed connection item.
  const changeBatches = changes / live.changesPerFanOutBatch;
  const fanOuts = changeBatches + connections;

  const messages = (pokes + 2 * pings) * message;
  const minutes = openMinutes * connectionMinute;
  const lambda =
    pings * invocation(work.connectionMs.ping) +
    connections * (invocation(work.connectionMs.connect) + invocation(work.connectionMs.disconnect) + invocation(work.authorizerMs)) +
    fanOuts * invocation(work.fanOutMs);
  const dynamoDb =
    (connections * (work.admitWriteUnits + work.disconnectWriteUnits) * prices.dynamoDbPerMillionWriteUnits.usd +
      changeBatches * work.fanOutReadUnitsPerAccount * prices.dynamoDbPerMillionReadUnits.usd) /
    1e6;
  const streamReads = (fanOuts * prices.dynamoDbStreamsPerMillionReadsByLambda.usd) / 1e6;
  const invocations = { connection: pings + 2 * connections, authorizer: connections, fanOut: fanOuts };
  const logs = (invocations.connection + invocations.authorizer + invocations.fanOut) * invocationLog + (pings + 2 * connections) * logLine(work.accessLogBytes);

  // A change: its share of a batch (invocation, the account's reads, the stream read) and its pokes.
  const perChange =
    (invocation(work.fanOutMs) + invocationLog + (work.fanOutReadUnitsPerAccount * prices.dynamoDbPerMillionReadUnits.usd) / 1e6 + prices.dynamoDbStreamsPerMillionReadsByLambda.usd / 1e6) /
      live.changesPerFanOutBatch +
    live.connectionsPokedPerChange * message;
  const pingsPerHour = 60 / work.pingMinutes;
  const perConnectionHour = 60 * connectionMinute + pingsPerHour * (2 * message + invocation(work.connectionMs.ping) + invocationLog + logLine(work.accessLogBytes));
  const total = messages + minutes + lambda + dynamoDb + streamReads + logs;
  const thousand = (usd: number) => round(usd * 1000, 4);
  return {
    openHoursPerUserPerMonth: round(openMinutes / 60, 3),
    connectionsPerUserPerMonth: connections,
    changesPerUserPerMonth: round(changes, 3),
    connectionsPokedPerChange: live.connectionsPokedPerChange,
    messagesPerUserPerMonth: { pokes: round(pokes, 3), pingsAndPongs: round(2 * pings, 3) },
    invocationsPerUserPerMonth: { connection: round(invocations.connection, 3), authorizer: connections, fanOut: round(fanOuts, 3) },
    perThousandMauUsd: {
      messages: thousand(messages),
      connectionMinutes: thousand(minutes),
      lambda: thousand(lambda),
      dynamoDb: thousand(dynamoDb),
      streamReads: thousand(streamReads),
      logs: thousand(logs),
      total: thousand(total),
    },
    usdPerMillionChanges: round(perChange * 1e6, 4),
    usdPerMillionConnectionHours: round(perConnectionHour * 1e6, 4),
  };
}

/** The speech routes whose calls the profile's captioning determines (issue 44). */
export const SPEECH_START = 'POST /api/speech/sessions';
export const SPEECH_RENEW = 'POST /api/speech/sessions/{sessionId}/renew';
export const SPEECH_END = 'POST /api/speech/sessions/{sessionId}/end';

/**
 * The calls a profile implies beyond those it lists: with `captioning`, a start and an end per
 * session and a renewal every heartbeat of each session but its last part (the end settles that),
 * so the renewals can never disagree with the hours or the heartbeat. A profile that also lists
 * one of these calls is refused: two figures for one fact.
 */
export function derivedCalls(profile: UsageProfile, settings: Pick<ModelSettings, 'speechHeartbeatSeconds'>): Record<string, number> {
  const calls: Record<string, number> = {};
  const captioning = profile.captioning;
  if (captioning) {
    const sessionSeconds = (captioning.hoursPerUserPerMonth * 3600) / captioning.sessionsPerUserPerMonth;
    calls[SPEECH_START] = captioning.sessionsPerUserPerMonth;
    calls[SPEECH_END] = captioning.sessionsPerUserPerMonth;
    calls[SPEECH_RENEW] = round(captioning.sessionsPerUserPerMonth * Math.max(0, Math.ceil(sessionSeconds / settings.speechHeartbeatSeconds) - 1), 6);
  }
  // Issue 45: a ticket before each connection: one per app open, another every 2 hours it stays open.
  if (profile.liveChannel) calls[REALTIME_TICKET] = profile.sessionsPerUserPerMonth * Math.ceil(profile.minutesPerSession / LIVE_CHANNEL_WORK.maxConnectionMinutes);
  return calls;
}

/** The profile with the calls it implies (derivedCalls) among its calls. */
export function withDerivedCalls(profile: UsageProfile, settings: Pick<ModelSettings, 'speechHeartbeatSeconds'>): UsageProfile {
  const derived = derivedCalls(profile, settings);
  const listed = Object.keys(derived).filter((id) => profile.callsPerUserPerMonth[id] !== undefined);
  if (listed.length > 0) throw new Error(`usage profile: ${listed.join(', ')} follow from its captioning (hours, sessions and the heartbeat) or its live channel (app opens); remove them from callsPerUserPerMonth`);
  return { ...profile, callsPerUserPerMonth: { ...profile.callsPerUserPerMonth, ...derived } };
}

/** Issue 44: what the providers charge for the profile's captioning, beside the service's own cost. */
export interface SpeechCost {
  hoursPerUserPerMonth: number;
  sessionsPerUserPerMonth: number;
  heartbeatSeconds: number;
  renewalsPerUserPerMonth: number;
  /** The service's own part of captioning: the speech routes' calls (start, renew, end, quota). */
  speechRoutesPerThousandMauUsd: number;
  providers: { provider: string; usdPerHour: number; perThousandMauUsd: number; source: string; date: string; verified: boolean }[];
}

export function speechCost(profile: UsageProfile, prices: Prices, settings: Pick<ModelSettings, 'speechHeartbeatSeconds'>, speechRoutesPerThousandMauUsd: number): SpeechCost | undefined {
  const captioning = profile.captioning;
  if (!captioning) return undefined;
  return {
    hoursPerUserPerMonth: captioning.hoursPerUserPerMonth,
    sessionsPerUserPerMonth: captioning.sessionsPerUserPerMonth,
    heartbeatSeconds: settings.speechHeartbeatSeconds,
    renewalsPerUserPerMonth: derivedCalls(profile, settings)[SPEECH_RENEW]!,
    speechRoutesPerThousandMauUsd: round(speechRoutesPerThousandMauUsd, 4),
    providers: Object.entries(prices.speechPerHour).map(([provider, price]) => ({
      provider,
      usdPerHour: price.usd,
      perThousandMauUsd: round(captioning.hoursPerUserPerMonth * price.usd * 1000, 2),
      source: price.source,
      date: price.date,
      verified: price.verified,
    })),
  };
}

/** Strips the `$comment` keys the data files carry for their readers. */
export function withoutComments(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutComments);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([key]) => key !== '$comment').map(([key, inner]) => [key, withoutComments(inner)]));
  }
  return value;
}

/** Measured figures of one route, with the init time of its function (cold import). */
export interface PricedInput extends OperationMeasure {
  initMs: number;
}

export interface AuthorizerInput extends AuthorizerMeasure {
  initMs: number;
}

/** Where the money of a call goes, in USD. */
export interface Breakdown {
  apiGateway: number;
  waf: number;
  lambda: number;
  coldStarts: number;
  secretReads: number;
  dynamoDb: number;
  logs: number;
  xRay: number;
  dataTransfer: number;
  storage: number;
  /** Issue 45: the live channel (WebSocket messages and connection-minutes, its functions, the fan-out's reads). */
  liveChannel: number;
  /** What the deployment pays by the month whatever its traffic, shared by its users. */
  fixedMonthly: number;
}

export const BREAKDOWN_LABELS: Record<keyof Breakdown, string> = {
  apiGateway: 'API Gateway requests',
  waf: 'AWS WAF requests inspected',
  lambda: 'Lambda requests and duration',
  coldStarts: 'cold starts (init duration)',
  secretReads: 'Secrets Manager reads (new and aged containers)',
  dynamoDb: 'DynamoDB reads and writes',
  logs: 'CloudWatch Logs ingestion',
  xRay: 'X-Ray traces',
  dataTransfer: 'data transfer out',
  storage: 'DynamoDB storage',
  liveChannel: 'live channel: WebSocket messages and minutes, its functions',
  fixedMonthly: 'by the month: WAF ACL and rules, alarms, dashboard, metrics, secret',
};

const zero = (): Breakdown => ({ apiGateway: 0, waf: 0, lambda: 0, coldStarts: 0, secretReads: 0, dynamoDb: 0, logs: 0, xRay: 0, dataTransfer: 0, storage: 0, liveChannel: 0, fixedMonthly: 0 });
const total = (breakdown: Breakdown) => Object.values(breakdown).reduce((sum, value) => sum + value, 0);
const GIB = 1024 ** 3;
const SECONDS_PER_MONTH = 30 * 86_400;

function addScaled(into: Breakdown, from: Breakdown, factor: number): Breakdown {
  for (const key of Object.keys(into) as (keyof Breakdown)[]) into[key] += from[key] * factor;
  return into;
}

/** An X-Ray sampling rule: the first `reservoirPerSecond` requests of each second, then a fixed share. */
export interface TraceSampling {
  reservoirPerSecond: number;
  fixedRate: number;
}

/** What the deployment decides, read from the stack and the settings by the caller. */
export interface ModelSettings {
  /** AUTHORIZER_CACHE_SECONDS of the deployment (shared/config.ts default). */
  authorizerCacheSeconds: number;
  /** The stack's sampling rule (infra/stack.ts API_TRACE_SAMPLING). */
  traceSampling: TraceSampling;
  /** KEYS_MAX_AGE_SECONDS of the deployment: how long a container uses its copy of the root secret. */
  keysMaxAgeSeconds: number;
  /** SPEECH_HEARTBEAT_SECONDS of the deployment: how often a captioning app renews its session. */
  speechHeartbeatSeconds: number;
  /** The live channel's functions' memory (infra/constructs/realtime-area.ts). */
  liveChannelMemoryMb: number;
  /** Lambda's platform lines per invocation at that memory (cost-measure.ts platformLogBytes). */
  liveChannelLogBytesPerInvocation: number;
}

/** The share of requests X-Ray records at a steady `requestsPerSecond`. */
export function sampledShare(requestsPerSecond: number, xRay: TraceSampling): number {
  if (requestsPerSecond <= 0) return 0;
  const reservoir = Math.min(requestsPerSecond, xRay.reservoirPerSecond);
  return (reservoir + xRay.fixedRate * (requestsPerSecond - reservoir)) / requestsPerSecond;
}

const lambdaDuration = (memoryMb: number, ms: number, prices: Prices['prices']) => (memoryMb / 1024) * (ms / 1000) * prices.lambdaArmPerGbSecond.usd;

/**
 * A call's share of its function's cold starts: the init time, and the root-secret read a new
 * container makes before its first answer (re-reads of aged copies are priced per function:
 * agedSecretReads).
 */
function coldStartShare(
  measure: { memoryMb: number; initMs: number; secretPerColdStart: boolean },
  prices: Prices['prices'],
  profile: UsageProfile,
): Pick<Breakdown, 'coldStarts' | 'secretReads'> {
  return {
    coldStarts: profile.coldStartShare * lambdaDuration(measure.memoryMb, Math.ceil(measure.initMs), prices),
    secretReads: measure.secretPerColdStart ? (profile.coldStartShare * prices.secretsManagerPer10kApiCalls.usd) / 1e4 : 0,
  };
}

/** One call of an operation, by component (storage apart: it follows the profile's retention, see perUserMonth). */
export function callCost(operation: PricedInput, prices: Prices['prices'], profile: UsageProfile, xRayShare: number): Breakdown {
  const cost = zero();
  cost.apiGateway = prices.apiGatewayRestPerMillionRequests.usd / 1e6;
  // The web ACL is associated with the stage: WAF inspects every request, not only code requests.
  cost.waf = prices.wafPerMillionRequests.usd / 1e6;
  // Lambda bills duration rounded up to the millisecond.
  cost.lambda = prices.lambdaPerMillionRequests.usd / 1e6 + lambdaDuration(operation.memoryMb, Math.ceil(operation.handlerMs), prices);
  Object.assign(cost, coldStartShare(operation, prices, profile));
  cost.dynamoDb = (operation.readUnits * prices.dynamoDbPerMillionReadUnits.usd + operation.writeUnits * prices.dynamoDbPerMillionWriteUnits.usd) / 1e6;
  cost.logs = ((operation.functionLogBytes + operation.accessLogBytes) / GIB) * prices.cloudWatchLogsIngestionPerGb.usd;
  cost.xRay = (xRayShare * prices.xRayPerMillionTracesRecorded.usd) / 1e6;
  cost.dataTransfer = (operation.responseBytes / GIB) * prices.dataTransferOutPerGb.usd;
  return cost;
}

/** One authorizer invocation: no gateway charge, no access log line of its own. */
export function authorizerCost(measure: AuthorizerInput, prices: Prices['prices'], profile: UsageProfile): Breakdown {
  const cost = zero();
  cost.lambda = prices.lambdaPerMillionRequests.usd / 1e6 + lambdaDuration(measure.memoryMb, Math.ceil(measure.handlerMs), prices);
  Object.assign(cost, coldStartShare(measure, prices, profile));
  cost.dynamoDb = (measure.readUnits * prices.dynamoDbPerMillionReadUnits.usd + measure.writeUnits * prices.dynamoDbPerMillionWriteUnits.usd) / 1e6;
  cost.logs = (measure.functionLogBytes / GIB) * prices.cloudWatchLogsIngestionPerGb.usd;
  return cost;
}

/**
 * Re-reads of the root secret a month by one function: each warm container reads it again on
 * the first request after its copy is KEYS_MAX_AGE_SECONDS old, so at most once per container
 * per window, and never more often than the function is called.
 */
export function agedSecretReads(invocationsPerMonth: number, profile: UsageProfile, keysMaxAgeSeconds: number): number {
  if (keysMaxAgeSeconds <= 0) return invocationsPerMonth;
  return Math.min(invocationsPerMonth, profile.warmContainersPerFunction * (SECONDS_PER_MONTH / keysMaxAgeSeconds));
}

/** USD a month the deployment pays whatever its traffic (cost-deployment.ts counts what is in the stack). */
export function fixedMonthlyUsd(deployment: DeploymentInventory, prices: Prices['prices']): number {
  return (
    deployment.webAcls * prices.wafPerWebAclMonth.usd +
    deployment.wafRules * prices.wafPerRuleMonth.usd +
    deployment.alarms * prices.cloudWatchPerAlarmMonth.usd +
    deployment.compositeAlarms * prices.cloudWatchPerCompositeAlarmMonth.usd +
    deployment.dashboards * prices.cloudWatchPerDashboardMonth.usd +
    deployment.customMetrics * prices.cloudWatchPerCustomMetricMonth.usd +
    deployment.secrets * prices.secretsManagerPerSecretMonth.usd
  );
}

/** USD per verification message, averaged over the profile's channels. */
export function messageCost(prices: Prices, profile: UsageProfile): number {
  let cost = profile.codeChannels.email * prices.prices.sesPerEmail.usd;
  for (const [country, share] of Object.entries(profile.codeChannels.sms)) {
    const price = prices.smsPerMessage[country];
    if (!price) throw new Error(`usage profile: no SMS price for ${country} in cost/prices.json`);
    cost += share * price.usd;
  }
  return cost;
}

/** A sign-in by code: a code sent, then verified. */
export const CODE_SIGN_IN_OPERATIONS = ['POST /api/verify-code/send', 'POST /api/verify-code/verify'];
/** The same sign-in with a passkey: options, then the assertion verified; no message. */
export const PASSKEY_SIGN_IN_OPERATIONS = ['POST /api/auth/passkey/options', 'POST /api/auth/passkey/verify'];

/** A sign-in with Apple, Google or WeChat: the nonce first for Apple and Google, then the provider's route; no message. */
export const SOCIAL_NONCE_OPERATION = 'POST /api/auth/social/nonce';
export const SOCIAL_SIGN_IN_OPERATIONS = { apple: 'POST /api/auth/apple', google: 'POST /api/auth/google', wechat: 'POST /api/auth/wechat' } as const;

/** How the month's sign-ins split: by passkey and by a provider; the rest by code. */
export interface SignInShares {
  passkey: number;
  social: number;
}

/**
 * The profile with `shares` of its code sign-ins made with a passkey or a provider instead: the
 * code calls shrink by both shares, the passkey and provider calls grow by theirs of the sign-ins
 * (verified codes), the providers split as the profile says.
 */
export function withSignInShares(profile: UsageProfile, shares: SignInShares): UsageProfile {
  if (shares.passkey + shares.social > 1) throw new Error('usage profile: the passkey and social shares of sign-ins exceed 1');
  const calls = { ...profile.callsPerUserPerMonth };
  const signIns = calls['POST /api/verify-code/verify'] ?? 0;
  const add = (id: string, count: number) => {
    if (count > 0) calls[id] = (calls[id] ?? 0) + count;
  };
  for (const id of CODE_SIGN_IN_OPERATIONS) if (calls[id] !== undefined) calls[id] *= 1 - shares.passkey - shares.social;
  for (const id of PASSKEY_SIGN_IN_OPERATIONS) add(id, signIns * shares.passkey);
  const providers = profile.socialSignIns?.providers ?? { apple: 0, google: 0, wechat: 0 };
  for (const [provider, id] of Object.entries(SOCIAL_SIGN_IN_OPERATIONS)) add(id, signIns * shares.social * providers[provider as keyof typeof providers]);
  add(SOCIAL_NONCE_OPERATION, signIns * shares.social * (providers.apple + providers.google));
  return {
    ...profile,
    callsPerUserPerMonth: calls,
    passkeySignInShare: shares.passkey,
    ...(profile.socialSignIns ? { socialSignIns: { ...profile.socialSignIns, share: shares.social } } : {}),
  };
}

/** The profile with `share` of its code sign-ins made with a passkey instead (and none with a provider). */
export const withPasskeyShare = (profile: UsageProfile, share: number): UsageProfile => withSignInShares(profile, { passkey: share, social: 0 });

/** What the app reads at open in one request since issue 29: the profile, devices, a week of usage, its settings. */
export const APP_OPEN_SUMMARY = 'GET /api/users/me/summary';
/** The reads an app open made before the summary, one each per open. */
export const APP_OPEN_READS = ['GET /api/users/me', 'GET /api/devices', 'GET /api/transcriptions/usage', 'GET /api/behavior/stats'];

/** The profile with each summary replaced by the separate reads it stands for: the app open as it was before issue 29. */
export function withSeparateOpenReads(profile: UsageProfile): UsageProfile {
  const calls = { ...profile.callsPerUserPerMonth };
  const opens = calls[APP_OPEN_SUMMARY] ?? 0;
  if (opens === 0) return profile;
  calls[APP_OPEN_SUMMARY] = 0;
  for (const id of APP_OPEN_READS) calls[id] = (calls[id] ?? 0) + opens;
  return { ...profile, callsPerUserPerMonth: calls };
}

/** The stack's cost of a profile's app opens one way or the other (messaging does not change). */
export interface AppOpenScenario {
  requestsPerUserPerMonth: number;
  authorizerInvocationsPerUserPerMonth: number;
  perThousandMauUsd: number;
}

/** Messaging, the stack (messaging excluded) and both together, USD per 1 000 MAU a month. */
export interface PasskeyScenario {
  messagingPerThousandMauUsd: number;
  perThousandMauUsd: number;
  totalPerThousandMauUsd: number;
}

export interface OperationCost {
  operation: string;
  dynamoRequests: number;
  readUnits: number;
  writeUnits: number;
  /** Beyond the shape: the floor of what DynamoDB bills for the same writes. */
  writeUnitsPerItemFloor: number;
  handlerMs: number;
  memoryMb: number;
  logBytes: number;
  usdPerMillion: number;
}

export interface CostReport {
  operations: OperationCost[];
  perMillionRequestsUsd: number;
  perThousandMauUsd: number;
  messagingPerThousandMauUsd: number;
  anchors: { name: string; perThousandMauUsd: number | null; source: string; date: string }[];
  /** Beyond the shape: the assumptions and parts behind the sums. */
  details: {
    mau: number;
    requestsPerUserPerMonth: number;
    authorizerInvocationsPerUserPerMonth: number;
    xRaySampledShare: number;
    /** What the monthly charges are for, and their sum (USD a month, any scale). */
    deployment: DeploymentInventory & { fixedMonthlyUsd: number };
    /** Root-secret reads a user a month beyond cold starts (aged copies in warm containers). */
    agedSecretReadsPerUserPerMonth: number;
    /** USD per 1 000 MAU by component, messaging excluded. */
    perThousandMauByComponent: Breakdown;
    /** USD per 1 000 MAU of each operation (its calls), storage included, authorizer apart. */
    perThousandMauByOperation: { operation: string; usd: number }[];
    authorizerPerThousandMauUsd: number;
    /** One authorizer run, priced like an operation (no gateway request, no access log line). */
    authorizerUsdPerMillionRuns: number;
    /** The sign-in part only: identity routes (those that read the root secret, and logout) and the authorizer. */
    identityPerThousandMauUsd: number;
    /**
     * The same sums with every transaction billed as DynamoDB bills it, two write units per item
     * at least (DynamoDB Local reports less: see DynamoUsage.writeUnitsPerItemFloor).
     */
    withPerItemTransactions: { perThousandMauUsd: number; dynamoDbPerThousandMauUsd: number };
    unknownOperations: string[];
    unpricedOperations: string[];
    goal: { anchor: string; maxPerThousandMauUsd: number; met: boolean };
    /**
     * Issue 30: the figures without passkeys (every sign-in by code) and with the profile's
     * passkey share of sign-ins (the report's own figures).
     */
    passkeys?: { signInShare: number; withoutPasskeys: PasskeyScenario; withPasskeys: PasskeyScenario };
    /**
     * Issue 38: the figures without sign-in by Apple, Google or WeChat (those sign-ins by code)
     * and with the profile's social share (the report's own figures), passkeys as the profile says.
     */
    social?: { signInShare: number; withoutSocial: PasskeyScenario; withSocial: PasskeyScenario };
    /**
     * Issue 29: the profile's app opens with the summary (the report's own figures) and with the
     * separate reads it replaces, everything else alike.
     */
    appOpen?: { summariesPerUserPerMonth: number; withSummary: AppOpenScenario; withSeparateReads: AppOpenScenario };
    /** Issue 44: the providers' bill for the profile's captioning, per provider, beside the stack's. */
    speech?: SpeechCost;
    /** Issue 45: the live channel, in the stack's sum as its own component. */
    liveChannel?: LiveChannelCost;
  };
}

export interface ModelInput {
  operations: PricedInput[];
  authorizer: AuthorizerInput;
  prices: Prices;
  profile: UsageProfile;
  settings: ModelSettings;
  deployment: DeploymentInventory;
}

/**
 * The identity part of the API, what Cognito or Firebase Auth would replace: the operations that
 * check codes, passwords or tokens against the root secret (sign-in, refresh, logout, the
 * sign-in identifiers), as the route table declares them.
 */
const isIdentityOperation = (operation: { secretPerColdStart: boolean }) => operation.secretPerColdStart;

export const GOAL_ANCHOR = 'Amazon Cognito Essentials';
export const GOAL_SHARE = 1 / 5;

const scenario = (report: CostReport): PasskeyScenario => ({
  messagingPerThousandMauUsd: report.messagingPerThousandMauUsd,
  perThousandMauUsd: report.perThousandMauUsd,
  totalPerThousandMauUsd: round(report.messagingPerThousandMauUsd + report.perThousandMauUsd, 4),
});

const appOpenScenario = (report: CostReport): AppOpenScenario => ({
  requestsPerUserPerMonth: report.details.requestsPerUserPerMonth,
  authorizerInvocationsPerUserPerMonth: report.details.authorizerInvocationsPerUserPerMonth,
  perThousandMauUsd: report.perThousandMauUsd,
});

export function costReport(given: ModelInput): CostReport {
  const input = { ...given, profile: withDerivedCalls(given.profile, given.settings) };
  const share = input.profile.passkeySignInShare ?? 0;
  const socialShare = input.profile.socialSignIns?.share ?? 0;
  const applied = { ...input, profile: withSignInShares(input.profile, { passkey: share, social: socialShare }) };
  const perItem = sums({ ...applied, operations: applied.operations.map((operation) => ({ ...operation, writeUnits: operation.writeUnitsPerItemFloor })) });
  const report = sums(applied, {
    perThousandMauUsd: perItem.perThousandMauUsd,
    dynamoDbPerThousandMauUsd: perItem.details.perThousandMauByComponent.dynamoDb,
  });
  const withoutPasskeys = sums({ ...input, profile: withSignInShares(input.profile, { passkey: 0, social: socialShare }) });
  report.details.passkeys = { signInShare: share, withoutPasskeys: scenario(withoutPasskeys), withPasskeys: scenario(report) };
  if (input.profile.socialSignIns) {
    const withoutSocial = sums({ ...input, profile: withSignInShares(input.profile, { passkey: share, social: 0 }) });
    report.details.social = { signInShare: socialShare, withoutSocial: scenario(withoutSocial), withSocial: scenario(report) };
  }
  const separateReads = sums({ ...applied, profile: withSeparateOpenReads(applied.profile) });
  report.details.appOpen = {
    summariesPerUserPerMonth: applied.profile.callsPerUserPerMonth[APP_OPEN_SUMMARY] ?? 0,
    withSummary: appOpenScenario(report),
    withSeparateReads: appOpenScenario(separateReads),
  };
  const speechRoutes = report.details.perThousandMauByOperation.filter((row) => row.operation.startsWith('POST /api/speech/') || row.operation.startsWith('GET /api/speech/'));
  const speech = speechCost(input.profile, input.prices, input.settings, speechRoutes.reduce((sum, row) => sum + row.usd, 0));
  if (speech) report.details.speech = speech;
  return report;
}

function sums(
  { operations, authorizer, prices, profile, settings, deployment }: ModelInput,
  withPerItemTransactions = { perThousandMauUsd: Number.NaN, dynamoDbPerThousandMauUsd: Number.NaN },
): CostReport {
  const byId = new Map(operations.map((operation) => [operation.operation, operation]));
  const unknownOperations = Object.keys(profile.callsPerUserPerMonth).filter((id) => !byId.has(id));
  const unpricedOperations = operations.map((operation) => operation.operation).filter((id) => profile.callsPerUserPerMonth[id] === undefined);
  const calls = (id: string) => (byId.has(id) ? (profile.callsPerUserPerMonth[id] ?? 0) : 0);

  const requestsPerUser = operations.reduce((sum, operation) => sum + calls(operation.operation), 0);
  const requestsPerSecond = (requestsPerUser * profile.mau) / SECONDS_PER_MONTH;
  const xRayShare = sampledShare(requestsPerSecond, settings.traceSampling);

  // One authorizer run per token per cache window: a session of N minutes spans ceil(N*60/ttl)
  // windows, and a refreshed token is a new cache key. Never more runs than Bearer calls.
  const bearerCalls = operations.filter((operation) => operation.auth === 'bearer').reduce((sum, operation) => sum + calls(operation.operation), 0);
  const refreshes = operations.filter((operation) => /\/token\/refresh$/.test(operation.operation)).reduce((sum, operation) => sum + calls(operation.operation), 0);
  const windowsPerSession = settings.authorizerCacheSeconds > 0 ? Math.ceil((profile.minutesPerSession * 60) / settings.authorizerCacheSeconds) : Infinity;
  const authorizerRuns = Math.min(bearerCalls, profile.sessionsPerUserPerMonth * windowsPerSession + refreshes);

  const perUser = zero();
  const identity = zero();
  const perOperation: { operation: string; usd: number }[] = [];
  const rows: OperationCost[] = operations.map((operation) => {
    const cost = callCost(operation, prices.prices, profile, xRayShare);
    // Storage: what a month of calls adds stays for dataRetainedMonths, so a user's steady share
    // is that many months of growth (deletions count against it; never below nothing).
    const storage = ((Math.max(0, operation.storedBytes) * profile.dataRetainedMonths) / GIB) * prices.prices.dynamoDbStoragePerGbMonth.usd;
    const monthly = addScaled(zero(), { ...cost, storage }, calls(operation.operation));
    addScaled(perUser, monthly, 1);
    if (isIdentityOperation(operation)) addScaled(identity, monthly, 1);
    perOperation.push({ operation: operation.operation, usd: total(monthly) * 1000 });
    return {
      operation: operation.operation,
      dynamoRequests: operation.dynamoRequests,
      readUnits: operation.readUnits,
      writeUnits: operation.writeUnits,
      writeUnitsPerItemFloor: operation.writeUnitsPerItemFloor,
      handlerMs: operation.handlerMs,
      memoryMb: operation.memoryMb,
      logBytes: operation.functionLogBytes + operation.accessLogBytes,
      usdPerMillion: round(total(cost) * 1e6, 4),
    };
  });
  const authorizerMonthly = addScaled(zero(), authorizerCost(authorizer, prices.prices, profile), authorizerRuns);
  addScaled(perUser, authorizerMonthly, 1);
  addScaled(identity, authorizerMonthly, 1);

  // Per user: the deployment's monthly charges and the aged-secret re-reads, spread over its users.
  const secretReadPrice = prices.prices.secretsManagerPer10kApiCalls.usd / 1e4;
  const readsOf = (invocationsPerUser: number) => agedSecretReads(invocationsPerUser * profile.mau, profile, settings.keysMaxAgeSeconds) / profile.mau;
  const secretReReads =
    operations.filter((operation) => operation.secretPerColdStart).reduce((sum, operation) => sum + readsOf(calls(operation.operation)), 0) +
    (authorizer.secretPerColdStart ? readsOf(authorizerRuns) : 0);
  perUser.secretReads += secretReReads * secretReadPrice;
  identity.secretReads += secretReReads * secretReadPrice;
  const fixedMonthly = fixedMonthlyUsd(deployment, prices.prices);
  perUser.fixedMonthly += fixedMonthly / profile.mau;
  const liveChannel = liveChannelCost(profile, prices.prices, settings);
  if (liveChannel) perUser.liveChannel += liveChannel.perThousandMauUsd.total / 1000;

  // Per request of the mix: what grows with requests (storage, the live channel and the monthly charges do not).
  const perMillionRequestsUsd = requestsPerUser > 0 ? ((total(perUser) - perUser.storage - perUser.liveChannel - perUser.fixedMonthly) / requestsPerUser) * 1e6 : 0;
  const messages = operations.reduce((sum, operation) => sum + calls(operation.operation) * (operation.messages.email + operation.messages.sms), 0);
  const perThousandMauUsd = total(perUser) * 1000;
  const goalAnchor = prices.anchors.find((anchor) => anchor.name === GOAL_ANCHOR);
  const maxPerThousand = (goalAnchor?.perThousandMauUsd ?? 0) * GOAL_SHARE;
  return {
    operations: rows,
    perMillionRequestsUsd: round(perMillionRequestsUsd, 4),
    perThousandMauUsd: round(perThousandMauUsd, 4),
    messagingPerThousandMauUsd: round(messages * messageCost(prices, profile) * 1000, 4),
    anchors: prices.anchors.map((anchor) => ({ name: anchor.name, perThousandMauUsd: anchor.perThousandMauUsd, source: anchor.source, date: anchor.date })),
    details: {
      mau: profile.mau,
      requestsPerUserPerMonth: round(requestsPerUser, 3),
      authorizerInvocationsPerUserPerMonth: round(authorizerRuns, 3),
      xRaySampledShare: round(xRayShare, 4),
      deployment: { ...deployment, fixedMonthlyUsd: round(fixedMonthly, 4) },
      agedSecretReadsPerUserPerMonth: round(secretReReads, 6),
      perThousandMauByComponent: Object.fromEntries(Object.entries(perUser).map(([key, value]) => [key, round(value * 1000, 4)])) as unknown as Breakdown,
      perThousandMauByOperation: perOperation.map((entry) => ({ ...entry, usd: round(entry.usd, 4) })).sort((a, b) => b.usd - a.usd),
      authorizerPerThousandMauUsd: round(total(authorizerMonthly) * 1000, 4),
      authorizerUsdPerMillionRuns: round(total(authorizerCost(authorizer, prices.prices, profile)) * 1e6, 4),
      identityPerThousandMauUsd: round(total(identity) * 1000, 4),
      withPerItemTransactions,
      unknownOperations,
      unpricedOperations,
      goal: { anchor: GOAL_ANCHOR, maxPerThousandMauUsd: round(maxPerThousand, 4), met: perThousandMauUsd <= maxPerThousand },
      ...(liveChannel ? { liveChannel } : {}),
    },
  };
}
