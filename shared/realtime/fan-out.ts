import { deleteConnection, listConnections } from '../db/realtime-repository';
import type { ConnectionRecord } from '../db/realtime-repository';
import { bookHonours, findSessionBook } from '../db/users-repository';
import type { ServiceContext } from '../service-context';
import { CLOSE_SESSION_ENDED } from './realtime-service';
import type { PushSender } from '../ports/push';
import { pushToClosedApps } from './silent-push';

/**
 * What the live channel tells its connections (docs/realtime.md). A poke carries no record data:
 * the change feed stays the only source of truth, so a poke lost, doubled or late never loses or
 * reorders anything; the app pulls the feed.
 */
export const POKE = JSON.stringify({ type: 'changes' });
export const PONG = JSON.stringify({ type: 'pong' });
/**
 * Sent before the gateway deletes a connection whose session ended (AWS cannot choose the close
 * code of a deletion; the local server closes with CLOSE_SESSION_ENDED and sends it too).
 */
export const SESSION_ENDED_MESSAGE = JSON.stringify({ type: 'session-ended', code: CLOSE_SESSION_ENDED });

/** How a fan-out reaches connections: API Gateway's management API on AWS, the open sockets locally. */
export interface ConnectionSender {
  /** Sends one message; 'gone' when the connection no longer exists (GoneException). */
  send(connectionId: string, message: string): Promise<'sent' | 'gone'>;
  /** Closes the connection because its session ended (locally with close code 4001; AWS deletes it). */
  end(connectionId: string): Promise<void>;
  /** Whether this sender reaches the connection (a local server reaches its own only); all when absent. */
  owns?(connectionId: string): boolean;
}

/** What happened to one account's connections in a batch. */
export interface AccountActivity {
  userId: number;
  /** A change-feed entry was written: its connections are poked. */
  changed: boolean;
}

export interface FanOutResult {
  poked: number;
  gone: number;
  ended: number;
  /** Silent pushes the providers accepted (docs/realtime.md#the-silent-push). */
  pushed: number;
}

/**
 * One poke per connection of each account that changed, however many changes the batch held;
 * and, for every account touched, the connections whose session no longer lives (signed out,
 * ended, a password change, disabled, deleted) closed and removed. Two reads per account with
 * connections (its connections, its profile), one for an account without; with a `pusher`, the
 * silent push to the changed account's closed apps beside them (one Query more, and the profile
 * when some session has a token).
 */
export async function fanOut(
  ctx: Pick<ServiceContext, 'db' | 'metrics' | 'log'> & Partial<Pick<ServiceContext, 'config' | 'clock'>>,
  sender: ConnectionSender,
  activity: readonly AccountActivity[],
  /** The silent push for the account's closed apps, where this deployment sends it (shared/realtime/silent-push.ts). */
  pusher?: PushSender,
): Promise<FanOutResult> {
  const byAccount = new Map<number, boolean>();
  for (const { userId, changed } of activity) byAccount.set(userId, (byAccount.get(userId) ?? false) || changed);
  const result: FanOutResult = { poked: 0, gone: 0, ended: 0, pushed: 0 };
  await Promise.all(
    [...byAccount].map(async ([userId, changed]) => {
      const all = await listConnections(ctx.db, userId);
      const connections = all.filter((connection) => sender.owns?.(connection.connectionId) ?? true);
      // Beside the pokes, never in their way: a provider's failure, or the push's own reads, leave them be.
      const pushing =
        changed && pusher && ctx.config && ctx.clock
          ? pushToClosedApps({ ...ctx, config: ctx.config, clock: ctx.clock }, pusher, userId, new Set(all.map((connection) => connection.sessionId))).then(
              (pushed) => void (result.pushed += pushed.pushed),
              (error: unknown) => ctx.log.error('silent push failed', { error: error as Error }),
            )
          : undefined;
      if (connections.length > 0) {
        const book = await findSessionBook(ctx.db, userId);
        const live = (connection: ConnectionRecord) => bookHonours(book, connection) && !book.disabled;
        await Promise.all(
          connections.map(async (connection) => {
            if (!live(connection)) {
              await sender.end(connection.connectionId);
              await deleteConnection(ctx.db, userId, connection.connectionId);
              ctx.metrics.count('RealtimeSessionsClosed');
              result.ended++;
              return;
            }
            if (!changed) return;
            if ((await sender.send(connection.connectionId, POKE)) === 'gone') {
              await deleteConnection(ctx.db, userId, connection.connectionId);
              ctx.metrics.count('RealtimeGoneConnections');
              result.gone++;
              return;
            }
            ctx.metrics.count('RealtimePokesSent');
            result.poked++;
          }),
        );
      }
      await pushing;
    }),
  );
  return result;
}

/** Connections whose items were removed (a purge, the TTL, a $disconnect): ended; one already closed is gone. */
export async function endRemovedConnections(sender: ConnectionSender, connectionIds: readonly string[]): Promise<void> {
  await Promise.all(connectionIds.filter((connectionId) => sender.owns?.(connectionId) ?? true).map((connectionId) => sender.end(connectionId)));
}
