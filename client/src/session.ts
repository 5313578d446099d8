import { SignedOutError, apiErrorOf } from './errors';
import { STORAGE_KEYS, readJson, writeJson } from './storage';
import type { Storage } from './storage';

/** The session as kept in storage. */
export interface StoredSession {
  token: string;
  refreshToken: string;
  /** When `token` expires, by this device's clock (ms since 1970). */
  expiresAt: number;
  /** The token's whole lifetime, for the refresh threshold. */
  lifetimeMs: number;
  userId: number;
}

/** What sign-ins and refreshes answer. */
export interface TokenAnswer {
  token: string;
  refreshToken: string;
  expiresIn: number;
  userId: number;
}

/** The refresh's only answers that end the session; anything else leaves the person signed in. */
const SESSION_OVER = ['SESSION_ENDED', 'REFRESH_TOKEN_EXPIRED', 'REFRESH_TOKEN_INVALID'];

export const sessionOf = (answer: TokenAnswer, sentAt: number): StoredSession => ({
  token: answer.token,
  refreshToken: answer.refreshToken,
  // From when the request left: the token was issued after that, so this errs on the early side.
  expiresAt: sentAt + answer.expiresIn * 1000,
  lifetimeMs: answer.expiresIn * 1000,
  userId: answer.userId,
});

/**
 * Refresh when less than the smaller of 60 s and half the token's lifetime remains. Judged at each
 * call (and by startAutoRefresh), never by a timer alone: a phone that slept missed its timers.
 */
export const needsRefresh = (session: StoredSession, now = Date.now()) => session.expiresAt - now < Math.min(60_000, session.lifetimeMs / 2);

/**
 * Keeps one person signed in: hands out a valid access token, refreshes it once however many calls
 * ask at the same moment, and signs out only when the service says the session is over.
 */
export class Session {
  private current: StoredSession | undefined;
  private refreshing: Promise<StoredSession> | undefined;
  /** Set once signed out, until the next sign-in: onSignedOut is called once, no request is sent. */
  private signedOutReason: string | undefined;

  constructor(
    private readonly storage: Storage,
    /** Sends the refresh request (with its retries); throws when no answer came. */
    private readonly sendRefresh: (refreshToken: string) => Promise<{ response: Response; data?: TokenAnswer; error?: unknown }>,
    private readonly onSignedOut: ((reason: string) => void) | undefined,
    /** Clears the rest of the signed-in person's state (event queue, pending keys). */
    private readonly clearOthers: () => Promise<void>,
  ) {}

  private async read(): Promise<StoredSession | undefined> {
    const stored = await readJson<StoredSession>(this.storage, STORAGE_KEYS.session);
    return stored?.refreshToken ? stored : undefined;
  }

  /** The session in memory; storage is read again while there is none (a sign-in by another instance). */
  async stored(): Promise<StoredSession | undefined> {
    if (!this.current) {
      this.current = await this.read();
      if (this.current) this.signedOutReason = undefined;
    }
    return this.current;
  }

  /** After a sign-in: the new session, persisted before the sign-in call returns. */
  async start(answer: TokenAnswer, sentAt: number): Promise<void> {
    const session = sessionOf(answer, sentAt);
    await writeJson(this.storage, STORAGE_KEYS.session, session);
    this.current = session;
    this.signedOutReason = undefined;
  }

  /**
   * A token to send now, refreshed first when it is close to expiry. A refresh that fails for a
   * passing reason (offline, 5xx, throttled) still lets a not-yet-expired token go out.
   */
  async accessToken(): Promise<string> {
    const session = await this.stored();
    if (!session) throw new SignedOutError(this.signedOutReason ?? 'NOT_SIGNED_IN');
    if (!needsRefresh(session)) return session.token;
    try {
      return (await this.refresh(session)).token;
    } catch (error) {
      if (error instanceof SignedOutError || session.expiresAt <= Date.now()) throw error;
      return session.token;
    }
  }

  /** A data call answered 401 with `token`: the token to retry with (one refresh, shared). */
  async afterUnauthorized(token: string): Promise<string> {
    const session = await this.stored();
    if (!session) throw new SignedOutError(this.signedOutReason ?? 'NOT_SIGNED_IN');
    // Another call refreshed meanwhile: its token is the one to retry with.
    if (session.token !== token) return session.token;
    return (await this.refresh(session)).token;
  }

  /**
   * One refresh at a time (single flight): calls that arrive while it runs wait for its result,
   * which is persisted before any of them resumes.
   */
  refresh(from: StoredSession): Promise<StoredSession> {
    this.refreshing ??= this.refreshOnce(from).finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async refreshOnce(from: StoredSession): Promise<StoredSession> {
    // Another instance on the same storage (an app and its widget, two tabs) may have rotated the
    // tokens already: then its session is ours, and sending the spent token would waste its grace.
    const before = await this.read();
    if (!before) return this.signOut('SIGNED_OUT');
    if (before.token !== from.token && !needsRefresh(before)) return (this.current = before);
    const sentAt = Date.now();
    const { response, data, error: body } = await this.sendRefresh(before.refreshToken);
    if (!response.ok || !data) {
      const error = await apiErrorOf(response, body ?? null);
      if (response.status === 401 && SESSION_OVER.includes(error.error)) {
        // Unless another instance rotated meanwhile, and ours was the token it spent.
        const now = await this.read();
        if (now && now.refreshToken !== before.refreshToken) return (this.current = now);
        return this.signOut(error.error);
      }
      throw error;
    }
    const next = sessionOf(data, sentAt);
    // Written only if storage still holds the token this refresh started from: another instance
    // that refreshed at the same moment got the same next token (the service's grace window), or
    // signed out, which must stay so.
    const now = await this.read();
    if (!now) return this.signOut('SIGNED_OUT');
    if (now.refreshToken === before.refreshToken) await writeJson(this.storage, STORAGE_KEYS.session, next);
    else if (!needsRefresh(now)) return (this.current = now);
    this.current = next;
    return next;
  }

  /** Ends the session here: storage cleared, onSignedOut called once, later calls refused. */
  async signOut(reason: string, notify = true): Promise<never> {
    const first = this.signedOutReason === undefined;
    this.signedOutReason = reason;
    this.current = undefined;
    await this.storage.remove(STORAGE_KEYS.session);
    await this.clearOthers();
    if (first && notify) this.onSignedOut?.(reason);
    throw new SignedOutError(reason);
  }

  /** Forgets the session after logout (no onSignedOut: the person chose it). */
  async forget(): Promise<void> {
    await this.signOut('LOGGED_OUT', false).catch(() => undefined);
  }
}

