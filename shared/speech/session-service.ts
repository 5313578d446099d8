import { randomUUID } from 'node:crypto';
import type * as z from 'zod/mini';
import type { exportedSpeechSessionSchema, speechQuotaSchema, speechRenewalSchema, speechSessionEndSchema, speechSessionSchema } from '../api/schemas';
import { SPEECH_PROVIDER_NAMES } from '../config';
import type { Config, SpeechProviderName } from '../config';
import type { AccountRef } from '../db/account-guard';
import { readWithProfile } from '../db/account-guard';
import {
  SpeechRace,
  chargeSpeechSession,
  expireSpeechSession,
  findClientSession,
  findSpeechSession,
  listSpeechSessions,
  putNewSpeechSession,
  readSpeechProfile,
  readSpeechState,
  readSpeechUsage,
  readSpeechUsageAround,
  replaceSpeechCredential,
} from '../db/speech-repository';
import type { SpeechEndReason, SpeechProfile, SpeechSessionRecord, SpeechState, StoredCredential } from '../db/speech-repository';
import {
  AccountDisabledError,
  ClientSessionIdReusedError,
  LanguageNotSupportedError,
  NotFoundError,
  ProviderNotConfiguredError,
  ProviderUnavailableError,
  ServiceUnavailableError,
  SpeechQuotaExhaustedError,
  SpeechSessionEndedError,
  SpeechSessionsLimitError,
  UnauthorizedError,
} from '../errors';
import { isoSeconds, utcDate } from '../ports/clock';
import { providerLanguage } from '../ports/speech-languages';
import { SpeechProviderFailure } from '../ports/speech';
import type { ServiceContext } from '../service-context';
import { addDays, firstOfNextMonth, localDate, startOfLocalDate } from '../time-zones';

/**
 * Speech sessions (issue 44, docs/speech.md): the app streams audio to the provider the person
 * picked with a short-lived credential this service issues, never the provider's key; the minutes
 * are metered by the service's clock and limited per person, per day and month of their own time
 * zone.
 *
 * The life of a session: a start (quota, concurrency, a credential) writes nothing to the counters;
 * each renewal charges the seconds since the last charge, as the app reports them but never more
 * than the service saw pass, and hands a credential valid for another heartbeat; `end` settles.
 * A session not renewed within two heartbeats is expired where it is next met (a start's prune of
 * the live set, a renewal or `end` of it, the quota's count): it was charged up to its last renewal
 * already, so expiring it charges nothing more. No job is needed (docs/speech.md, "Expiry").
 */

export type SpeechSessionAnswer = z.output<typeof speechSessionSchema>;
export type SpeechRenewalAnswer = z.output<typeof speechRenewalSchema>;
export type SpeechEndAnswer = z.output<typeof speechSessionEndSchema>;
export type SpeechQuota = z.output<typeof speechQuotaSchema>;
export type ExportedSpeechSession = z.output<typeof exportedSpeechSessionSchema>;

export interface StartBody {
  provider: SpeechProviderName;
  language: string;
  clientSessionId: string;
  sampleRate?: 8000 | 16000 | undefined;
}

/** Seconds a person should wait after a provider failed before trying it again. */
export const SPEECH_RETRY_AFTER_SECONDS = 5;
/** Reads and writes again this often when a concurrent start or renewal of the account moved what was read. */
const RACE_ATTEMPTS = 8;

const DEFAULT_SAMPLE_RATE = 16000;

/** Two heartbeats: a session unrenewed longer is expired. */
const expiryMs = (cfg: Config) => 2 * cfg.SPEECH_HEARTBEAT_SECONDS * 1000;

/** The configured providers that serve a language at a rate (the start's fallbacks and suggestions). */
export function providersServing(cfg: Config, language: string, sampleRate: number, except?: SpeechProviderName): SpeechProviderName[] {
  return SPEECH_PROVIDER_NAMES.filter((name) => name !== except && cfg.SPEECH_PROVIDERS.includes(name) && providerLanguage(name, language, sampleRate) !== undefined);
}

/** A speech operation acts for a current token of an account support has not disabled. */
function admit(profile: SpeechProfile): void {
  if (profile.disabled) throw new AccountDisabledError(AccountDisabledError.message);
  if (!profile.current) throw new UnauthorizedError('Unauthorized');
}

interface Limits {
  daily: number;
  monthly: number;
}

const limitsOf = (cfg: Config, state: Pick<SpeechState, 'dailySeconds' | 'monthlySeconds'>): Limits => ({
  daily: state.dailySeconds ?? cfg.SPEECH_DAILY_SECONDS,
  monthly: state.monthlySeconds ?? cfg.SPEECH_MONTHLY_SECONDS,
});

const liveCount = (state: SpeechState, nowMs: number) => Object.values(state.live).filter((deadline) => deadline >= nowMs).length;

/** When the day's and the month's minutes come back, in the person's time zone. */
function resets(day: string, timeZone: string | null) {
  return {
    day: startOfLocalDate(firstDayAfter(day), timeZone),
    month: startOfLocalDate(firstOfNextMonth(day), timeZone),
  };
}

const firstDayAfter = (day: string): string => {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, date + 1)).toISOString().slice(0, 10);
};

function quotaView(cfg: Config, limits: Limits, day: string, usage: { daySeconds: number; monthSeconds: number }, timeZone: string | null, live: number): SpeechQuota {
  const at = resets(day, timeZone);
  return {
    day: { date: day, usedSeconds: usage.daySeconds, limitSeconds: limits.daily, remainingSeconds: Math.max(0, limits.daily - usage.daySeconds), resetsAt: isoSeconds(at.day) },
    month: {
      date: day.slice(0, 7),
      usedSeconds: usage.monthSeconds,
      limitSeconds: limits.monthly,
      remainingSeconds: Math.max(0, limits.monthly - usage.monthSeconds),
      resetsAt: isoSeconds(at.month),
    },
    sessionMaxSeconds: cfg.SPEECH_SESSION_MAX_SECONDS,
    liveSessions: live,
  };
}

/** The quota of today (the person's today), reading today's counters. */
async function todaysQuota(ctx: ServiceContext, userId: number, timeZone: string | null, state: SpeechState, now: Date): Promise<SpeechQuota> {
  const day = localDate(now, timeZone);
  const usage = await readSpeechUsage(ctx.db, userId, day, day.slice(0, 7));
  return quotaView(ctx.config, limitsOf(ctx.config, state), day, usage, timeZone, liveCount(state, now.getTime()));
}

/** GET /api/speech/quota (and the summary's `speech`): the profile (the account check and the time zone) beside the live set, then today's counters. */
export async function speechQuota(ctx: ServiceContext, account: AccountRef): Promise<SpeechQuota> {
  const now = ctx.clock.now();
  const { profile, result: state } = await readWithProfile(ctx.db, account, ['timeZone'], () => readSpeechState(ctx.db, account.userId));
  return todaysQuota(ctx, account.userId, profile.timeZone, state, now);
}

/**
 * The summary's reads of the quota, which need no time zone and so run beside the profile's read:
 * the live set, and the day and month items around today in UTC (every zone's today among them).
 */
export function readSpeechQuotaAround(ctx: ServiceContext, userId: number, now: Date) {
  const utcToday = utcDate(now);
  return Promise.all([readSpeechState(ctx.db, userId), readSpeechUsageAround(ctx.db, userId, addDays(utcToday, -1), addDays(utcToday, 1))]);
}

/** The quota from what readSpeechQuotaAround read, cut to the person's own today and month. */
export function speechQuotaInZone(ctx: ServiceContext, read: Awaited<ReturnType<typeof readSpeechQuotaAround>>, timeZone: string | null, now: Date): SpeechQuota {
  const [state, usage] = read;
  const day = localDate(now, timeZone);
  const used = { daySeconds: usage.days[day] ?? 0, monthSeconds: usage.months[day.slice(0, 7)] ?? 0 };
  return quotaView(ctx.config, limitsOf(ctx.config, state), day, used, timeZone, liveCount(state, now.getTime()));
}

/** The 403 of spent minutes: `resetsAt` when they come back (the later of day and month, when both are spent). */
function quotaExhausted(message: string, resetsAt: Date): SpeechQuotaExhaustedError {
  return new SpeechQuotaExhaustedError(message, { resetsAt: isoSeconds(resetsAt) });
}

/**
 * A credential from the provider, as the session keeps it. Asked to last two heartbeats (at least
 * a minute), so that every renewal hands one valid for at least another heartbeat, and is re-minted
 * only every other renewal or so; `renewAfter` is a heartbeat before it expires, and never later
 * than nine tenths of its life (Azure's 10-minute token: 9 minutes).
 */
async function issueCredential(ctx: ServiceContext, provider: SpeechProviderName, language: string, sampleRate: number, now: Date): Promise<StoredCredential> {
  const heartbeatMs = ctx.config.SPEECH_HEARTBEAT_SECONDS * 1000;
  let issued;
  try {
    issued = await ctx.speech.issue(provider, { language, sampleRate, now, ttlSeconds: Math.max(60, 2 * ctx.config.SPEECH_HEARTBEAT_SECONDS) });
  } catch (error) {
    if (!(error instanceof SpeechProviderFailure)) throw error;
    ctx.metrics.count('SpeechProviderFailures', provider);
    if (error.reason === 'key-refused' || error.reason === 'missing-key') ctx.metrics.count('SpeechKeysRefused', provider);
    // The reason and the status only: never the request, which carries the key.
    ctx.log.warn('speech provider gave no credential', { provider, reason: error.reason, status: typeof error.cause === 'string' ? error.cause : undefined });
    throw new ProviderUnavailableError(`${provider} cannot issue a credential right now. Try again shortly, or use another provider.`, SPEECH_RETRY_AFTER_SECONDS, {
      cause: error.reason,
      answer: { fallbackProviders: providersServing(ctx.config, language, sampleRate, provider) },
    });
  }
  const nowMs = now.getTime();
  const expiresAtMs = issued.expiresAt.getTime();
  const renewAfterMs = Math.max(nowMs, Math.min(expiresAtMs - heartbeatMs, nowMs + Math.floor(0.9 * (expiresAtMs - nowMs))));
  const connect = { url: issued.connect.url, ...(issued.connect.headers ? { headers: issued.connect.headers } : {}), ...(issued.connect.region ? { region: issued.connect.region } : {}) };
  return { kind: issued.kind, value: issued.value, expiresAtMs, renewAfterMs, connect };
}

/**
 * The credential the session holds until its `renewAfter` (it then lasts more than another
 * heartbeat); from then on a new one. A renewal at `renewAfter` must get a new credential: an app
 * renewing every heartbeat would otherwise keep one that expires as its next renewal arrives.
 */
async function credentialFor(ctx: ServiceContext, session: SpeechSessionRecord, now: Date): Promise<{ credential: StoredCredential; fresh: boolean }> {
  const held = session.credential;
  const nowMs = now.getTime();
  if (held && nowMs < held.renewAfterMs && held.expiresAtMs - nowMs >= ctx.config.SPEECH_HEARTBEAT_SECONDS * 1000) return { credential: held, fresh: false };
  return { credential: await issueCredential(ctx, session.provider as SpeechProviderName, session.language, session.sampleRate, now), fresh: true };
}

const credentialView = (credential: StoredCredential) => ({
  credential: { kind: credential.kind, value: credential.value, expiresAt: isoSeconds(new Date(credential.expiresAtMs)), renewAfter: isoSeconds(new Date(credential.renewAfterMs)) },
  connect: {
    url: credential.connect.url,
    ...(credential.connect.headers ? { headers: credential.connect.headers } : {}),
    ...(credential.connect.region ? { region: credential.connect.region } : {}),
  },
});

/**
 * What a session may be charged in all now: what the app reports (whole seconds, rounded up), never
 * more than the service has seen pass since the start, never less than it was charged already.
 */
export function meteredSeconds(session: Pick<SpeechSessionRecord, 'startedAtMs' | 'chargedSeconds'>, elapsedSeconds: number, nowMs: number): number {
  const seen = Math.ceil(Math.max(0, nowMs - session.startedAtMs) / 1000);
  return Math.max(session.chargedSeconds, Math.min(Math.ceil(elapsedSeconds), seen));
}

/** POST /api/speech/sessions. */
export async function startSpeechSession(ctx: ServiceContext, account: AccountRef, body: StartBody): Promise<{ answer: SpeechSessionAnswer; replayed: boolean }> {
  const cfg = ctx.config;
  const { provider, language, clientSessionId } = body;
  const sampleRate = body.sampleRate ?? DEFAULT_SAMPLE_RATE;
  const fingerprint = `${provider}|${language}|${sampleRate}`;
  for (let attempt = 0; attempt < RACE_ATTEMPTS; attempt++) {
    const now = ctx.clock.now();
    const nowMs = now.getTime();
    const [profile, state, pointer] = await Promise.all([
      readSpeechProfile(ctx.db, account),
      readSpeechState(ctx.db, account.userId),
      findClientSession(ctx.db, account.userId, clientSessionId),
    ]);
    // After the account: a deleted account's token is a 401 whatever it asks for.
    admit(profile);
    if (!cfg.SPEECH_PROVIDERS.includes(provider)) throw new ProviderNotConfiguredError(`This service does not offer speech with ${provider}.`);
    if (providerLanguage(provider, language, sampleRate) === undefined) {
      throw new LanguageNotSupportedError(`${provider} does not transcribe ${language} at ${sampleRate} Hz.`, { supportedProviders: providersServing(cfg, language, sampleRate) });
    }
    const day = localDate(now, profile.timeZone);
    const limits = limitsOf(cfg, state);
    if (pointer) {
      if (pointer.fingerprint !== fingerprint) throw new ClientSessionIdReusedError('This clientSessionId started a session with another provider, language or rate.');
      const session = await findSpeechSession(ctx.db, account.userId, pointer.sessionId);
      if (!session || session.status === 'ended' || session.deadlineMs < nowMs) throw new SpeechSessionEndedError('The session this clientSessionId started has ended. Start a new one with a new clientSessionId.');
      const { credential, fresh } = await credentialFor(ctx, session, now);
      try {
        if (fresh) await replaceSpeechCredential(ctx.db, account.userId, session.sessionId, credential);
      } catch (error) {
        if (error instanceof SpeechRace) continue;
        throw error;
      }
      const usage = await readSpeechUsage(ctx.db, account.userId, day, day.slice(0, 7));
      const quota = quotaView(cfg, limits, day, usage, profile.timeZone, liveCount(state, nowMs));
      return { answer: sessionAnswer(cfg, session, credential, quota, now, maxSeconds(cfg, session, quota)), replayed: true };
    }

    const usage = await readSpeechUsage(ctx.db, account.userId, day, day.slice(0, 7));
    const quota = quotaView(cfg, limits, day, usage, profile.timeZone, liveCount(state, nowMs));
    if (quota.day.remainingSeconds <= 0 || quota.month.remainingSeconds <= 0) {
      ctx.metrics.count('SpeechQuotaRefusals', provider);
      const monthSpent = quota.month.remainingSeconds <= 0;
      throw quotaExhausted(monthSpent ? 'No speech minutes are left this month.' : 'No speech minutes are left today.', new Date(monthSpent ? quota.month.resetsAt : quota.day.resetsAt));
    }
    if (quota.liveSessions >= cfg.SPEECH_CONCURRENT_SESSIONS) {
      // The session that fills the limit may be this very start, made by a parallel repeat since the
      // pointer was read: then the next round answers it (200, replayed), not a refusal.
      if (await findClientSession(ctx.db, account.userId, clientSessionId)) continue;
      throw new SpeechSessionsLimitError(`At most ${cfg.SPEECH_CONCURRENT_SESSIONS} speech sessions may be live at once. End one first.`);
    }
    // Before anything is written: a provider that fails leaves nothing behind and charges nothing.
    const credential = await issueCredential(ctx, provider, language, sampleRate, now);
    const session: SpeechSessionRecord = {
      sessionId: randomUUID(),
      clientSessionId,
      provider,
      language,
      sampleRate,
      startedAtMs: nowMs,
      day,
      month: day.slice(0, 7),
      chargedSeconds: 0,
      lastRenewedAtMs: nowMs,
      deadlineMs: nowMs + expiryMs(cfg),
      status: 'live',
      endedAtMs: null,
      endReason: null,
      clientRecordId: null,
      credential,
    };
    try {
      await putNewSpeechSession(ctx.db, account, session, fingerprint, state);
    } catch (error) {
      if (error instanceof SpeechRace) continue;
      throw error;
    }
    ctx.metrics.count('SpeechSessionsStarted', provider);
    ctx.log.info('speech session started', { provider, language, sessionId: session.sessionId });
    const answered = { ...quota, liveSessions: quota.liveSessions + 1 };
    return { answer: sessionAnswer(cfg, session, credential, answered, now, maxSeconds(cfg, session, answered)), replayed: false };
  }
  throw new ServiceUnavailableError('The request kept colliding with concurrent ones; try again.');
}

/** The most the session may be charged in all: what it has, and the smallest of the day's and month's remainder and the session's own. */
const maxSeconds = (cfg: Config, session: SpeechSessionRecord, quota: SpeechQuota) =>
  Math.min(session.chargedSeconds + Math.min(quota.day.remainingSeconds, quota.month.remainingSeconds), cfg.SPEECH_SESSION_MAX_SECONDS);

function sessionAnswer(cfg: Config, session: SpeechSessionRecord, credential: StoredCredential, quota: SpeechQuota, now: Date, max: number): SpeechSessionAnswer {
  return {
    sessionId: session.sessionId,
    provider: session.provider as SpeechProviderName,
    language: session.language,
    startedAt: isoSeconds(new Date(session.startedAtMs)),
    serverTime: isoSeconds(now),
    ...credentialView(credential),
    limits: { maxSeconds: max, heartbeatSeconds: cfg.SPEECH_HEARTBEAT_SECONDS },
    quota,
  };
}

interface SessionRead {
  now: Date;
  profile: SpeechProfile;
  state: SpeechState;
  session: SpeechSessionRecord;
}

/** The session of the caller (404 for none, or another account's), with the account and live set read beside it. */
async function readSession(ctx: ServiceContext, account: AccountRef, sessionId: string): Promise<SessionRead> {
  const now = ctx.clock.now();
  const [profile, state, session] = await Promise.all([readSpeechProfile(ctx.db, account), readSpeechState(ctx.db, account.userId), findSpeechSession(ctx.db, account.userId, sessionId)]);
  admit(profile);
  if (!session) throw new NotFoundError('No such speech session of yours.');
  return { now, profile, state, session };
}

/** What a charge may reach: the remainder of the session's day and month (the day it started) and the session maximum. */
async function room(ctx: ServiceContext, account: AccountRef, read: SessionRead) {
  const limits = limitsOf(ctx.config, read.state);
  const usage = await readSpeechUsage(ctx.db, account.userId, read.session.day, read.session.month);
  const dayLeft = Math.max(0, limits.daily - usage.daySeconds);
  const monthLeft = Math.max(0, limits.monthly - usage.monthSeconds);
  const cap = Math.min(read.session.chargedSeconds + Math.min(dayLeft, monthLeft), ctx.config.SPEECH_SESSION_MAX_SECONDS);
  return { limits, usage, dayLeft, monthLeft, cap };
}

/** The quota after a charge of `delta` to the session's day and month (read again when the session started on another day). */
async function quotaAfter(ctx: ServiceContext, account: AccountRef, read: SessionRead, known: { limits: Limits; usage: { daySeconds: number; monthSeconds: number } }, delta: number, liveChange: number) {
  const today = localDate(read.now, read.profile.timeZone);
  const live = Math.max(0, liveCount(read.state, read.now.getTime()) + liveChange);
  if (today !== read.session.day) return { ...(await todaysQuota(ctx, account.userId, read.profile.timeZone, read.state, read.now)), liveSessions: live };
  return quotaView(ctx.config, known.limits, today, { daySeconds: known.usage.daySeconds + delta, monthSeconds: known.usage.monthSeconds + delta }, read.profile.timeZone, live);
}

/** An expired session met by a renewal or an end: recorded as such (charged to its last renewal already). */
async function expireIfDue(ctx: ServiceContext, account: AccountRef, read: SessionRead): Promise<boolean> {
  if (read.session.status !== 'live' || read.session.deadlineMs >= read.now.getTime()) return false;
  await expireSpeechSession(ctx.db, account.userId, read.session, read.now.getTime());
  ctx.log.info('speech session expired', { provider: read.session.provider, sessionId: read.session.sessionId });
  return true;
}

/** POST /api/speech/sessions/{sessionId}/renew. */
export async function renewSpeechSession(ctx: ServiceContext, account: AccountRef, sessionId: string, elapsedSeconds: number): Promise<SpeechRenewalAnswer> {
  const cfg = ctx.config;
  for (let attempt = 0; attempt < RACE_ATTEMPTS; attempt++) {
    const read = await readSession(ctx, account, sessionId);
    const { session, now } = read;
    if (session.status === 'ended' || (await expireIfDue(ctx, account, read))) throw new SpeechSessionEndedError('This speech session has ended. Start a new one.');
    const nowMs = now.getTime();
    const space = await room(ctx, account, read);
    const wanted = meteredSeconds(session, elapsedSeconds, nowMs);
    const charged = Math.min(wanted, space.cap);
    const provider = session.provider as SpeechProviderName;
    if (charged >= space.cap) {
      // The day's or month's minutes, or the session's own maximum, are reached: settled and ended.
      try {
        await chargeSpeechSession(ctx.db, account, { session, chargedSeconds: charged, nowMs, deadlineMs: nowMs, dailyLimit: space.limits.daily, monthlyLimit: space.limits.monthly, end: { reason: 'quota', clientRecordId: null } });
      } catch (error) {
        if (error instanceof SpeechRace) continue;
        throw error;
      }
      counted(ctx, provider, charged - session.chargedSeconds);
      ctx.metrics.count('SpeechQuotaRefusals', provider);
      ctx.log.info('speech session ended: no minutes left', { provider, sessionId });
      const at = resets(session.day, read.profile.timeZone);
      const sessionMax = charged >= cfg.SPEECH_SESSION_MAX_SECONDS && space.dayLeft > charged - session.chargedSeconds && space.monthLeft > charged - session.chargedSeconds;
      throw sessionMax
        ? quotaExhausted('This session reached its longest length. Start a new one.', now)
        : space.monthLeft <= charged - session.chargedSeconds
          ? quotaExhausted('No speech minutes are left this month.', at.month)
          : quotaExhausted('No speech minutes are left today.', at.day);
    }
    // The provider is asked before anything is charged: a failure charges nothing (the next renewal charges the time).
    const { credential, fresh } = await credentialFor(ctx, session, now);
    try {
      await chargeSpeechSession(ctx.db, account, {
        session,
        chargedSeconds: charged,
        nowMs,
        deadlineMs: nowMs + expiryMs(cfg),
        dailyLimit: space.limits.daily,
        monthlyLimit: space.limits.monthly,
        ...(fresh ? { credential } : {}),
      });
    } catch (error) {
      if (error instanceof SpeechRace) continue;
      throw error;
    }
    const delta = charged - session.chargedSeconds;
    counted(ctx, provider, delta);
    const quota = await quotaAfter(ctx, account, read, space, delta, 0);
    return { ...credentialView(credential), limits: { maxSeconds: space.cap, heartbeatSeconds: cfg.SPEECH_HEARTBEAT_SECONDS }, quota };
  }
  throw new ServiceUnavailableError('The request kept colliding with concurrent ones; try again.');
}

function counted(ctx: ServiceContext, provider: SpeechProviderName, seconds: number): void {
  if (seconds > 0) ctx.metrics.add?.('SpeechSecondsCharged', seconds, provider);
}

/** POST /api/speech/sessions/{sessionId}/end: settles; repeated, the same charge. */
export async function endSpeechSession(ctx: ServiceContext, account: AccountRef, sessionId: string, elapsedSeconds: number, clientRecordId: string | undefined): Promise<SpeechEndAnswer> {
  for (let attempt = 0; attempt < RACE_ATTEMPTS; attempt++) {
    const read = await readSession(ctx, account, sessionId);
    const { session, now } = read;
    if (session.status === 'ended' || (await expireIfDue(ctx, account, read))) {
      const quota = await todaysQuota(ctx, account.userId, read.profile.timeZone, await readSpeechState(ctx.db, account.userId), now);
      return { sessionId, chargedSeconds: session.chargedSeconds, quota };
    }
    const space = await room(ctx, account, read);
    const charged = Math.min(meteredSeconds(session, elapsedSeconds, now.getTime()), space.cap);
    const reason: SpeechEndReason = 'ended';
    try {
      await chargeSpeechSession(ctx.db, account, {
        session,
        chargedSeconds: charged,
        nowMs: now.getTime(),
        deadlineMs: now.getTime(),
        dailyLimit: space.limits.daily,
        monthlyLimit: space.limits.monthly,
        end: { reason, clientRecordId: clientRecordId ?? null },
      });
    } catch (error) {
      if (error instanceof SpeechRace) continue;
      throw error;
    }
    const delta = charged - session.chargedSeconds;
    counted(ctx, session.provider as SpeechProviderName, delta);
    ctx.log.info('speech session ended', { provider: session.provider, sessionId, chargedSeconds: charged });
    return { sessionId, chargedSeconds: charged, quota: await quotaAfter(ctx, account, read, space, delta, -1) };
  }
  throw new ServiceUnavailableError('The request kept colliding with concurrent ones; try again.');
}

/** The export's speech sessions: provider, language, start, end, charge and the linked record; never a credential. */
export async function exportedSpeechSessions(ctx: ServiceContext, userId: number): Promise<ExportedSpeechSession[]> {
  const nowMs = ctx.clock.now().getTime();
  return (await listSpeechSessions(ctx.db, userId)).map((session) => ({
    sessionId: session.sessionId,
    provider: session.provider as SpeechProviderName,
    language: session.language,
    startedAt: isoSeconds(new Date(session.startedAtMs)),
    endedAt: session.status === 'ended' && session.endedAtMs !== null ? isoSeconds(new Date(session.endedAtMs)) : session.deadlineMs < nowMs ? isoSeconds(new Date(session.deadlineMs)) : null,
    chargedSeconds: session.chargedSeconds,
    clientRecordId: session.clientRecordId,
  }));
}
