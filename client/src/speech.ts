import type { ClientContext } from './context';
import { ApiError, NetworkError, SignedOutError, SpeechError, apiErrorOf } from './errors';
import type { components } from './generated/api';
import { newUuid } from './idempotency';
import { dataOf } from './transport';

/**
 * Speech sessions (issue 44; docs/client.md#speech-sessions, wiring in docs/speech.md): the
 * provider's short-lived credential for streaming, renewed every heartbeat while the app streams,
 * the minutes metered by the service. `start()` answers a live session; it renews itself with the
 * time streamed by a monotonic clock, hands each new credential to `onCredential` by the service's
 * `renewAfter`, warns once through `onQuota` when less than a fifth of the day's minutes are left,
 * and ends through `onEnd` with a reason when the service refuses a renewal, never throwing into
 * the app. `end()` settles.
 */

type SessionAnswer = components['schemas']['SpeechSession'];
type RenewalAnswer = components['schemas']['SpeechRenewal'];
export type SpeechProvider = SessionAnswer['provider'];
export type SpeechCredential = SessionAnswer['credential'];
export type SpeechConnect = SessionAnswer['connect'];
export type SpeechLimits = SessionAnswer['limits'];
export type SpeechQuota = components['schemas']['SpeechQuota'];
export type SpeechSessionEnd = components['schemas']['SpeechSessionEnd'];

/**
 * Why a session ended: `app` its own `end()`; `quota` the day's or month's minutes, or the
 * session's maximum, are spent (403 SPEECH_QUOTA_EXHAUSTED, `error.resetsAt`); `ended` the service
 * no longer knows it live (409 SPEECH_SESSION_ENDED: ended elsewhere, or expired after two
 * heartbeats without a renewal; 404; another refusal); `signed-out` nobody is signed in any more.
 */
export type SpeechEndReason = 'app' | 'quota' | 'ended' | 'signed-out';

/** A monotonic clock and its timers (performance.now() and the platform's timers unless given: tests pass a fake one). */
export interface SpeechClock {
  /** Milliseconds, never going back (not the wall clock, which the person or the network may set). */
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface SpeechStartOptions {
  provider: SpeechProvider;
  /** As records have it: `en-US`, `zh-CN` ... */
  language: string;
  /** Hz: 8000 or 16000 (the service's default). */
  sampleRate?: 8000 | 16000;
  /** A new credential (a new token, or a new signed address): give it to the recognizer before the one it holds expires. */
  onCredential?: (credential: SpeechCredential, connect: SpeechConnect) => void;
  /** Less than a fifth of the day's minutes are left (once per session, as soon as it is so). */
  onQuota?: (quota: SpeechQuota) => void;
  /** The session ended (once); stop streaming. `error` is the service's refusal, when there was one. */
  onEnd?: (reason: SpeechEndReason, error?: ApiError | SignedOutError) => void;
  /** A renewal got no answer after the client's retries, or a 5xx: it is tried again soon, the session goes on. */
  onRenewError?: (error: unknown) => void;
  clock?: SpeechClock;
}

export interface SpeechSession {
  readonly sessionId: string;
  /** The id the client made for the start (a repeat of the start with it answers this session). */
  readonly clientSessionId: string;
  readonly provider: SpeechProvider;
  readonly language: string;
  readonly startedAt: string;
  /** The latest credential and where to connect with it (each new one went to `onCredential` too). */
  readonly credential: SpeechCredential;
  readonly connect: SpeechConnect;
  readonly limits: SpeechLimits;
  /** The quota as the latest answer gave it. */
  readonly quota: SpeechQuota;
  readonly state: 'live' | 'ended';
  readonly endReason: SpeechEndReason | undefined;
  /** Seconds since the start answered, by the monotonic clock: what the renewals report. */
  elapsedSeconds(): number;
  /** Settles the session (`clientRecordId`: the record it produced). Safe to call again: the same answer. */
  end(options?: { clientRecordId?: string }): Promise<SpeechSessionEnd>;
}

/** Refusals that end the session; other failures (no answer, 5xx) are tried again. */
function endReasonOf(error: unknown): SpeechEndReason | undefined {
  if (error instanceof SignedOutError) return 'signed-out';
  if (!(error instanceof ApiError)) return undefined;
  if (error.error === 'SPEECH_QUOTA_EXHAUSTED') return 'quota';
  if (error.status === 401) return 'signed-out';
  if (error.status >= 500 || error.status === 408 || error.status === 429) return undefined;
  return 'ended';
}

/** How long after the credential's renewAfter the renewal for it goes (see scheduleNext). */
const RENEW_AFTER_MARGIN_MS = 1000;

const defaultClock = (): SpeechClock => {
  const performance = (globalThis as { performance?: { now(): number } }).performance;
  return {
    now: () => performance?.now() ?? Date.now(),
    setTimeout: (callback, ms) => setTimeout(callback, ms),
    clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  };
};

/** A callback of the app that throws must not stop the renewals: its error is thrown again outside them. */
const tell = (callback: () => void) => {
  try {
    callback();
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
  }
};

export function speechArea(context: ClientContext) {
  /**
   * Every speech request is safe to repeat: a start carries its clientSessionId (the same session
   * answers again), a renewal and an end the time streamed since the start (a repeat charges
   * nothing more). A provider failing is answered at once: the app may choose a fallback.
   */
  async function call<T>(path: string, body?: unknown): Promise<T> {
    const response = await context.request(body === undefined ? 'GET' : 'POST', path, body, undefined, { repeatable: true, finalErrors: ['PROVIDER_UNAVAILABLE'] });
    if (!response.ok) throw await apiErrorOf(response, undefined, SpeechError);
    return (await response.json()) as T;
  }

  // A start whose answer never came: the next start of the same body sends the same id, and so
  // gets that session rather than a second one holding a place until it expires.
  let unanswered: { body: string; clientSessionId: string } | undefined;

  return {
    /** `GET /api/speech/quota`: today's and this month's seconds, limits, remainders and resets, the session maximum, the live sessions. */
    quota: () => dataOf(context.api.GET('/speech/quota')),

    /**
     * Starts a session and keeps it renewed (see SpeechStartOptions). Throws SpeechError for a
     * refused start (`PROVIDER_NOT_CONFIGURED`, `LANGUAGE_NOT_SUPPORTED` with `supportedProviders`,
     * `PROVIDER_UNAVAILABLE` with `fallbackProviders` and `retryAfterSeconds`,
     * `SPEECH_QUOTA_EXHAUSTED` with `resetsAt`, `SPEECH_SESSIONS_LIMIT`), NetworkError when no
     * answer came.
     */
    async start(options: SpeechStartOptions): Promise<SpeechSession> {
      const clock = options.clock ?? defaultClock();
      const wanted = { provider: options.provider, language: options.language, ...(options.sampleRate ? { sampleRate: options.sampleRate } : {}) };
      const fingerprint = JSON.stringify(wanted);
      const clientSessionId = unanswered?.body === fingerprint ? unanswered.clientSessionId : newUuid();
      let answer: SessionAnswer;
      try {
        answer = await call<SessionAnswer>('/speech/sessions', { ...wanted, clientSessionId });
        unanswered = undefined;
      } catch (error) {
        unanswered = error instanceof NetworkError ? { body: fingerprint, clientSessionId } : undefined;
        throw error;
      }

      const startedAt = clock.now();
      // The service's wall clock as this device's monotonic clock reads it (renewAfter is the service's time).
      const serverOffset = Date.parse(answer.serverTime) - startedAt;
      const { sessionId } = answer;
      let { credential, connect, limits, quota } = answer;
      let state: 'live' | 'ended' = 'live';
      let endReason: SpeechEndReason | undefined;
      let timer: unknown;
      let lastRenewal = startedAt;
      let warned = false;
      let ending: Promise<SpeechSessionEnd> | undefined;
      let endElapsed: number | undefined;

      const elapsedSeconds = () => Math.round(clock.now() - startedAt) / 1000;
      const checkQuota = () => {
        if (warned || quota.day.remainingSeconds * 5 >= quota.day.limitSeconds) return;
        warned = true;
        tell(() => options.onQuota?.(quota));
      };
      const finish = (reason: SpeechEndReason, error?: ApiError | SignedOutError) => {
        if (state === 'ended') return;
        state = 'ended';
        endReason = reason;
        if (timer !== undefined) clock.clearTimeout(timer);
        timer = undefined;
        tell(() => options.onEnd?.(reason, error));
      };
      const schedule = (delayMs: number) => {
        timer = clock.setTimeout(() => void renew(), Math.max(0, delayMs));
      };
      /**
       * The next renewal: a heartbeat after the last one; at the credential's renewAfter when that
       * comes first or with it (the renewal then hands a new one before the held one expires), or
       * when the session reaches `maxSeconds` (the renewal then ends it, so streaming stops at the
       * limit). The renewal for renewAfter goes a second after it: the service keeps the held
       * credential until renewAfter, which its answer gives in whole seconds, and a heartbeat's
       * renewal arriving a moment early would get the held one again, to be replaced only as it
       * expires.
       */
      const scheduleNext = () => {
        const now = clock.now();
        let delay = lastRenewal + limits.heartbeatSeconds * 1000 - now;
        const untilRenewAfter = Date.parse(credential.renewAfter) + RENEW_AFTER_MARGIN_MS - (now + serverOffset);
        if (untilRenewAfter > 0 && untilRenewAfter <= delay + RENEW_AFTER_MARGIN_MS) delay = untilRenewAfter;
        const untilMax = startedAt + limits.maxSeconds * 1000 - now;
        if (untilMax > 0 && untilMax < delay) delay = untilMax;
        schedule(delay);
      };
      const renew = async () => {
        timer = undefined;
        if (state !== 'live') return;
        const sentAt = clock.now();
        let renewed: RenewalAnswer;
        try {
          renewed = await call<RenewalAnswer>(`/speech/sessions/${sessionId}/renew`, { elapsedSeconds: elapsedSeconds() });
        } catch (error) {
          if (state !== 'live') return;
          const reason = endReasonOf(error);
          if (reason) return finish(reason, error as ApiError | SignedOutError);
          tell(() => options.onRenewError?.(error));
          // Tried again well before the service expires the session (two heartbeats after the last renewal).
          const heartbeatMs = limits.heartbeatSeconds * 1000;
          const retryAfterMs = error instanceof ApiError && error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : heartbeatMs / 4;
          return schedule(Math.min(retryAfterMs, heartbeatMs / 2));
        }
        if (state !== 'live') return;
        lastRenewal = sentAt;
        const fresh = renewed.credential.value !== credential.value;
        ({ credential, connect, limits, quota } = renewed);
        if (fresh) tell(() => options.onCredential?.(credential, connect));
        checkQuota();
        scheduleNext();
      };

      checkQuota();
      scheduleNext();

      return {
        sessionId,
        clientSessionId,
        provider: answer.provider,
        language: answer.language,
        startedAt: answer.startedAt,
        get credential() {
          return credential;
        },
        get connect() {
          return connect;
        },
        get limits() {
          return limits;
        },
        get quota() {
          return quota;
        },
        get state() {
          return state;
        },
        get endReason() {
          return endReason;
        },
        elapsedSeconds,
        end({ clientRecordId } = {}) {
          // The time streamed is the moment of the first end(): a retry later charges no more.
          endElapsed ??= elapsedSeconds();
          finish('app');
          ending ??= call<SpeechSessionEnd>(`/speech/sessions/${sessionId}/end`, { elapsedSeconds: endElapsed, ...(clientRecordId ? { clientRecordId } : {}) }).then(
            (settled) => {
              quota = settled.quota;
              return settled;
            },
            (error: unknown) => {
              ending = undefined;
              throw error;
            },
          );
          return ending;
        },
      };
    },
  };
}

export type Speech = ReturnType<typeof speechArea>;
