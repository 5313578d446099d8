import { readForAccount } from '../db/account-guard';
import type { AccountRef } from '../db/account-guard';
import {
  SessionBookChangedError,
  endListedSession,
  endSessionQuietly,
  endSessions,
  findSession,
  firstSessionProfile,
  readAccountSessions,
  sessionIdsOf,
  openSessionWrites,
  putNewSession,
  rotateSession,
} from '../db/sessions-repository';
import type { SessionRecord } from '../db/sessions-repository';
import { backOff, writeAtomically } from '../db/transactions';
import type { GuardedWrite } from '../db/transactions';
import { bookHonours, findSessionBook } from '../db/users-repository';
import type { SessionBook } from '../db/users-repository';
import { AccountDisabledError, RefreshTokenExpiredError, RefreshTokenInvalidError, ServiceUnavailableError, SessionEndedError, UnauthorizedError } from '../errors';
import { epochSeconds, isoSeconds } from '../ports/clock';
import type { ServiceContext } from '../service-context';
import { newSessionId, newSessionSeed, parseRefreshToken, refreshTokenFor, refreshTokenMatches } from './refresh-tokens';
import { issueToken } from './tokens';
import type * as z from 'zod/mini';
import type { activeSessionSchema, refreshedSessionSchema } from '../api/schemas';

/** At most this many live sessions per account; a sign-in beyond it ends the least recently used. */
export const MAX_LIVE_SESSIONS = 20;
const CLIENT_NAME_MAX = 64;
const DAY_SECONDS = 86_400;
/** Sign-ins racing on one account retry the book; this many rounds is far beyond any real race. */
const OPEN_SESSION_ROUNDS = 12;

/** What a sign-in or a refresh answers besides the user. */
export interface IssuedTokens {
  token: string;
  refreshToken: string;
  /** Seconds until the access token expires. */
  expiresIn: number;
}

/** A session as the person's list shows it (shared/api/schemas.ts). */
export type ActiveSession = z.output<typeof activeSessionSchema>;
/** A refresh's answer: the next tokens of the session, and its user. */
export type RefreshedSession = z.output<typeof refreshedSessionSchema>;

/** The stored session as its list shows it: seed, generation and times of the stored item stay out. */
const activeSession = (session: SessionRecord, caller: AccountRef): ActiveSession => ({
  sessionId: session.sessionId,
  clientName: session.clientName,
  createdAt: session.createdAt,
  lastUsedAt: session.lastUsedAt,
  current: session.sessionId === caller.sessionId,
});

const refreshed = (tokens: IssuedTokens, userId: number): RefreshedSession => ({
  token: tokens.token,
  refreshToken: tokens.refreshToken,
  expiresIn: tokens.expiresIn,
  userId,
});

/** The name a person sees in their list of sessions: the app's own, else its User-Agent, else "unknown". */
export function sessionName(clientName: string | undefined, userAgent: string | undefined): string {
  if (clientName !== undefined) return clientName;
  const agent = Array.from(userAgent?.trim() ?? '').slice(0, CLIENT_NAME_MAX).join('');
  return agent === '' ? 'unknown' : agent;
}

/** Whether a session lives: opened at the account's version, marked, and neither expired nor idle too long. */
export const isLive = (session: SessionRecord, book: SessionBook, now: number) =>
  session.tokenVersion === book.tokenVersion && book.markedSessionIds.includes(session.sessionId) && session.endsAt > now && session.idleEndsAt > now;

/**
 * The one rule that keeps a disabled account out (issue 37; /work/notes/DISABLED.md): every way in
 * opens its session through `openSession` or renews it through `refreshSession`, and both call
 * this on the profile's book they read anyway, after the credential was proven. A way in added
 * later (another identity provider) is covered by opening its session the same way. A proven
 * credential that opens no session asks `assertMaySignIn`; a password reset, which opens none,
 * has the same rule in its write's condition (users-repository `replacePassword`), at no extra read.
 */
export function refuseDisabled(book: Pick<SessionBook, 'disabled'> | undefined): void {
  if (book?.disabled) throw new AccountDisabledError(AccountDisabledError.message);
}

/** `refuseDisabled` for a proven credential that opens no session (a password reset): one read. */
export async function assertMaySignIn(ctx: ServiceContext, userId: number): Promise<void> {
  refuseDisabled(await findSessionBook(ctx.db, userId));
}

/** `now`: the moment the session's times were set from, so the token's expiry agrees with them. */
async function issueFor(ctx: ServiceContext, session: SessionRecord, now: Date = ctx.clock.now()): Promise<IssuedTokens> {
  const { tokenSigningKey, refreshTokenKey } = await ctx.keys();
  // An access token never outlives its session (the authorizer would not notice an idle end).
  const { token, expiresAt } = await issueToken(
    tokenSigningKey,
    session,
    now,
    { issuer: ctx.config.JWT_ISSUER, audience: ctx.config.JWT_AUDIENCE, lifetimeMs: ctx.config.TOKEN_TTL_MS },
    Math.min(session.endsAt, session.idleEndsAt),
  );
  return { token, refreshToken: refreshTokenFor(refreshTokenKey, session, session.generation), expiresIn: Math.max(0, expiresAt - epochSeconds(now)) };
}

function newSession(ctx: ServiceContext, account: { userId: number; tokenVersion: number }, clientName: string): SessionRecord {
  const now = ctx.clock.now();
  const seconds = epochSeconds(now);
  return {
    userId: account.userId,
    sessionId: newSessionId(),
    clientName,
    createdAt: isoSeconds(now),
    lastUsedAt: isoSeconds(now),
    generation: 0,
    rotatedAt: seconds,
    seed: newSessionSeed(),
    tokenVersion: account.tokenVersion,
    endsAt: seconds + ctx.config.SESSION_MAX_DAYS * DAY_SECONDS,
    idleEndsAt: seconds + ctx.config.SESSION_IDLE_DAYS * DAY_SECONDS,
  };
}

/**
 * The first session of an account being created: the profile attributes and the write that go
 * into the sign-up's transaction, and the tokens to answer once it has committed.
 */
export function firstSession(ctx: ServiceContext, account: { userId: number; tokenVersion: number }, clientName: string) {
  const session = newSession(ctx, account, clientName);
  return { profileExtras: firstSessionProfile(session), write: putNewSession(ctx.db, session), issue: () => issueFor(ctx, session) };
}

/**
 * Opens a session for an existing account in one transaction with `alongside` (the code a code
 * sign-in spends), ending what must end: sessions beyond the cap (least recently used first),
 * expired ones, and those a password reset has ended but not yet removed.
 */
export async function openSession(
  ctx: ServiceContext,
  account: { userId: number; tokenVersion: number },
  clientName: string,
  alongside: GuardedWrite[] = [],
  /** Attributes the sign-in also sets on the profile, in the same write (a social identity's marker). */
  profileSet: Record<string, unknown> = {},
): Promise<IssuedTokens> {
  for (let round = 0; round < OPEN_SESSION_ROUNDS; round++) {
    const sessions = await readAccountSessions(ctx.db, account.userId);
    const { book, items } = sessions;
    refuseDisabled(book);
    // The account was deleted, or its password reset, since the sign-in read it. Rare enough
    // (the same person's reset racing their own sign-in) that "try again" is the honest answer.
    if (!book || book.tokenVersion !== account.tokenVersion) throw new ServiceUnavailableError('The account changed during the sign-in; try again.');
    const now = epochSeconds(ctx.clock.now());
    const live = items.filter((session) => isLive(session, book, now)).sort((a, b) => a.lastUsedAt.localeCompare(b.lastUsedAt));
    // The newest live ones stay, one short of the cap; everything else ends: the least recently
    // used beyond it, expired or reset ones, and markers whose item is gone.
    const kept = new Set(live.slice(Math.max(0, live.length - (MAX_LIVE_SESSIONS - 1))).map((session) => session.sessionId));
    const ending = sessionIdsOf(sessions).filter((sessionId) => !kept.has(sessionId));
    const session = newSession(ctx, account, clientName);
    try {
      await writeAtomically(ctx.db, [...alongside, ...openSessionWrites(ctx.db, session, book.sessionsRev, ending, profileSet)]);
      return await issueFor(ctx, session);
    } catch (error) {
      if (!(error instanceof SessionBookChangedError)) throw error;
      await backOff(round);
    }
  }
  throw new ServiceUnavailableError('Too many sign-ins at once on this account; try again.');
}

/**
 * Exchanges a refresh token for a new access token and the next refresh token (rotation).
 *
 * - The current token rotates the session; it is spent.
 * - The token just spent, within REFRESH_GRACE_SECONDS of its rotation, answers the same next
 *   token again (parallel refreshes, a lost answer): whichever answer the app keeps works.
 * - Any other spent token is a replay: someone holds a copy. The session ends at once, access
 *   tokens included, and the answer says only that the session ended.
 */
export async function refreshSession(ctx: ServiceContext, presented: string): Promise<RefreshedSession> {
  const parts = parseRefreshToken(presented);
  if (!parts) throw new RefreshTokenInvalidError('The refresh token is invalid.');
  const { refreshTokenKey } = await ctx.keys();
  // Two rounds: a parallel refresh may rotate between our read and our write; the second read
  // then sees its rotation, and this request is inside the grace window.
  for (let round = 0; round < 2; round++) {
    const [session, standing] = await Promise.all([
      findSession(ctx.db, parts.userId, parts.sessionId),
      findSessionBook(ctx.db, parts.userId),
    ]);
    if (!session) throw new SessionEndedError('The session has ended. Sign in again.');
    // A forged token ends nothing: only a proven token of this session can signal a replay.
    if (!refreshTokenMatches(refreshTokenKey, parts, session.seed) || parts.generation > session.generation) {
      throw new RefreshTokenInvalidError('The refresh token is invalid.');
    }
    // Proven: a disabled account's holder learns why (its sessions ended when it was disabled).
    refuseDisabled(standing);
    const now = ctx.clock.now();
    const nowSeconds = epochSeconds(now);
    // The session's own standing, as its access tokens would be judged: opened at the account's
    // current version (a password reset since ended it) and still marked.
    if (!bookHonours(standing, session)) {
      await endSessionQuietly(ctx.db, session.userId, session.sessionId);
      throw new SessionEndedError('The session has ended. Sign in again.');
    }
    if (session.endsAt <= nowSeconds || session.idleEndsAt <= nowSeconds) {
      await endSessionQuietly(ctx.db, session.userId, session.sessionId);
      throw new RefreshTokenExpiredError('The session has expired. Sign in again.');
    }
    if (parts.generation === session.generation) {
      const next = {
        generation: session.generation + 1,
        rotatedAt: nowSeconds,
        lastUsedAt: isoSeconds(now),
        idleEndsAt: nowSeconds + ctx.config.SESSION_IDLE_DAYS * DAY_SECONDS,
      };
      if (await rotateSession(ctx.db, session, next)) {
        const tokens = await issueFor(ctx, { ...session, ...next }, now);
        ctx.metrics.count('SignIns', 'refresh');
        return refreshed(tokens, session.userId);
      }
      continue;
    }
    const grace = ctx.config.REFRESH_GRACE_SECONDS;
    // 0 turns the window off: a spent token is a replay from the first second on.
    if (parts.generation === session.generation - 1 && grace > 0 && nowSeconds - session.rotatedAt <= grace) {
      const tokens = await issueFor(ctx, session);
      ctx.metrics.count('SignIns', 'refresh');
      return refreshed(tokens, session.userId);
    }
    ctx.log.warn('refresh token reuse: session ended', { userId: session.userId, sessionId: session.sessionId });
    ctx.metrics.count('RefreshTokenReuse');
    await endSessionQuietly(ctx.db, session.userId, session.sessionId);
    throw new SessionEndedError('The session has ended. Sign in again.');
  }
  // Rotated twice within one request's reads: only a replay racing the real app does that.
  await endSessionQuietly(ctx.db, parts.userId, parts.sessionId);
  throw new SessionEndedError('The session has ended. Sign in again.');
}

/** The account's live sessions, newest first; `current` marks the caller's. */
export async function listActiveSessions(ctx: ServiceContext, caller: AccountRef): Promise<ActiveSession[]> {
  const { book, items } = await readAccountSessions(ctx.db, caller.userId);
  // The same rule as every data operation: the caller's token must still be current.
  if (!bookHonours(book, caller)) throw new UnauthorizedError('Unauthorized');
  const now = epochSeconds(ctx.clock.now());
  return items
    .filter((session) => isLive(session, book, now))
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.sessionId.localeCompare(a.sessionId))
    .map((session) => activeSession(session, caller));
}

/** Ends one of the caller's sessions (their own included: that is signing out). */
export async function endSession(ctx: ServiceContext, caller: AccountRef, sessionId: string): Promise<void> {
  await endListedSession(ctx.db, caller, sessionId, epochSeconds(ctx.clock.now()));
}

/** "Sign out my other devices": ends every session of the account but the caller's; answers how many were live. */
export async function endOtherSessions(ctx: ServiceContext, caller: AccountRef): Promise<number> {
  const sessions = await readAccountSessions(ctx.db, caller.userId);
  const { book, items } = sessions;
  // A token whose own session has ended cannot end the others (the write checks it again).
  if (!bookHonours(book, caller)) throw new UnauthorizedError('Unauthorized');
  const now = epochSeconds(ctx.clock.now());
  const ending = sessionIdsOf(sessions).filter((sessionId) => sessionId !== caller.sessionId);
  if (ending.length > 0) await endSessions(ctx.db, caller.userId, ending, caller);
  return items.filter((session) => session.sessionId !== caller.sessionId && isLive(session, book, now)).length;
}

/**
 * Logout with the app's refresh token ends that session. A token that is not a proven token of
 * the caller's account changes nothing, and the answer is the same: logout never fails on it.
 * The caller's access token must still be current, as on every Bearer route (a cached Allow may
 * outlive it): a deleted account's, a reset password's or an ended session's token gets 401,
 * and its session has ended already. The check reads the profile beside the session, one
 * request's time.
 */
export async function signOut(ctx: ServiceContext, caller: AccountRef, refreshToken: string | undefined): Promise<void> {
  const parsed = refreshToken === undefined ? undefined : parseRefreshToken(refreshToken);
  const parts = parsed && parsed.userId === caller.userId ? parsed : undefined;
  const session = await readForAccount(ctx.db, caller, async () => (parts ? findSession(ctx.db, parts.userId, parts.sessionId) : undefined));
  if (!parts || !session) return;
  const { refreshTokenKey } = await ctx.keys();
  if (!refreshTokenMatches(refreshTokenKey, parts, session.seed)) return;
  await endSessionQuietly(ctx.db, session.userId, session.sessionId);
}
