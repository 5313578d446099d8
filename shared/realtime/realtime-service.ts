import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../db/client';
import { admitConnectionWrites, deleteConnection, putTicketWrites } from '../db/realtime-repository';
import type { SessionRef } from '../db/realtime-repository';
import { writeAtomically } from '../db/transactions';
import { SessionEndedError, UnauthorizedError } from '../errors';
import { epochSeconds, isoSeconds } from '../ports/clock';
import type { ServiceContext } from '../service-context';
import type { AccountRef } from '../db/account-guard';

/**
 * The live channel's tickets (docs/realtime.md). A ticket opens one WebSocket connection of the
 * session that asked for it, within TICKET_SECONDS, once: it goes in the connection's URL instead
 * of a token, so no long-lived credential ever reaches a URL or an access log. The same
 * `admitConnection` spends it for the local server's WebSocket endpoint and for API Gateway's
 * `$connect` authorizer on AWS.
 */

export const TICKET_SECONDS = 60;

/**
 * A ticket that opens nothing: spent already, expired, forged, or not a ticket. Not an HTTP
 * operation's error: the WebSocket's opening is refused with it (HTTP 401 on the upgrade, the
 * authorizer's Unauthorized on AWS), and the app asks for a new ticket.
 */
export class RealtimeTicketInvalidError extends Error {
  static readonly code = 'REALTIME_TICKET_INVALID';
}
/** The path of the local WebSocket endpoint (infra/local/realtime-server.ts). */
export const LOCAL_REALTIME_PATH = '/realtime';
/** A connection stays in the table this long past API Gateway's 2-hour limit, should its $disconnect never come. */
const CONNECTION_TTL_MARGIN_SECONDS = 3600;

/** Close codes the service uses (WebSocket's private range): the session ended, sign in again. */
export const CLOSE_SESSION_ENDED = 4001;

/** `v1.<userId>.<sessionId>.<tokenVersion>.<43 random base64url characters>`: the key is the SHA-256 of all of it. */
const TICKET_PATTERN = /^v1\.(\d{1,16})\.([A-Za-z0-9_-]{1,64})\.(\d{1,16})\.([A-Za-z0-9_-]{43})$/;

const hashOf = (ticket: string) => createHash('sha256').update(ticket, 'utf8').digest('base64url');

/** A ticket read back: what it names and its hash, or undefined for anything not shaped like one. */
export function parseTicket(ticket: string): (SessionRef & { secretHash: string }) | undefined {
  const match = TICKET_PATTERN.exec(ticket);
  if (!match) return undefined;
  const userId = Number(match[1]);
  const tokenVersion = Number(match[3]);
  if (!Number.isSafeInteger(userId) || !Number.isSafeInteger(tokenVersion)) return undefined;
  return { userId, sessionId: match[2]!, tokenVersion, secretHash: hashOf(ticket) };
}

export interface RealtimeTicket {
  url: string;
  ticket: string;
  expiresAt: string;
}

/**
 * A ticket for the caller's session: only its hash is stored, written while the caller's token is
 * current and the account not disabled (a disabled account's sessions have ended, so its token
 * gets the 401 of any ended session).
 */
export async function issueTicket(ctx: Pick<ServiceContext, 'db' | 'clock' | 'config'>, caller: AccountRef, requestHost: string | undefined): Promise<RealtimeTicket> {
  // Every bearer token of a person names its session; one without (none are issued) cannot be bound.
  if (caller.sessionId === undefined) throw new UnauthorizedError('Unauthorized');
  const now = ctx.clock.now();
  const expiresAt = epochSeconds(now) + TICKET_SECONDS;
  const ticket = `v1.${caller.userId}.${caller.sessionId}.${caller.tokenVersion}.${randomBytes(32).toString('base64url')}`;
  await writeAtomically(
    ctx.db,
    putTicketWrites(ctx.db, { ...caller, sessionId: caller.sessionId }, hashOf(ticket), expiresAt, () => new UnauthorizedError('Unauthorized')),
  );
  const base = ctx.config.REALTIME_URL ?? `ws://${requestHost ?? 'localhost:8080'}${LOCAL_REALTIME_PATH}`;
  const url = new URL(base);
  url.searchParams.set('ticket', ticket);
  return { url: url.toString(), ticket, expiresAt: isoSeconds(new Date(expiresAt * 1000)) };
}

/**
 * Spends a ticket for a new connection and records the connection, in one transaction
 * (shared/db/realtime-repository.ts). A ticket spent, expired or forged: RealtimeTicketInvalidError;
 * its session ended or its account disabled since: SessionEndedError. Either way no connection exists.
 */
export async function admitConnection(
  ctx: Pick<ServiceContext, 'db' | 'clock' | 'config'>,
  ticket: string | undefined,
  connectionId: string,
): Promise<SessionRef> {
  const parsed = ticket === undefined ? undefined : parseTicket(ticket);
  if (!parsed) throw new RealtimeTicketInvalidError('Not a ticket of the live channel.');
  const now = ctx.clock.now();
  await writeAtomically(
    ctx.db,
    admitConnectionWrites(
      ctx.db,
      parsed,
      { connectionId, connectedAt: isoSeconds(now), expiresAt: epochSeconds(now) + ctx.config.REALTIME_MAX_CONNECTION_SECONDS + CONNECTION_TTL_MARGIN_SECONDS },
      epochSeconds(now),
      {
        ticket: () => new RealtimeTicketInvalidError('The ticket is spent, expired or not one the service issued.'),
        session: () => new SessionEndedError('The session has ended. Sign in again.'),
      },
    ),
  );
  return { userId: parsed.userId, sessionId: parsed.sessionId, tokenVersion: parsed.tokenVersion };
}

/** A connection closed by its client or the gateway: its item goes ($disconnect on AWS). */
export async function connectionClosed(db: Database, userId: number, connectionId: string): Promise<void> {
  await deleteConnection(db, userId, connectionId);
}
