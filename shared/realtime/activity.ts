import type { AccountActivity } from './fan-out';

/**
 * Which accounts a set of written items concerns, and whether a change-feed entry is among them:
 * the same rule for the table's stream on AWS (functions/realtime/fan-out.ts, whose event filter
 * passes only these items) and the local server's watch on its writes (infra/local/realtime-server.ts).
 *
 * - a change-feed entry put (`USER#<id>` / `CHANGE#...`): the account changed, its connections are poked;
 * - the profile written or deleted (`USER#<id>` / `PROFILE`): sessions may have ended (a marker
 *   removed, the token version raised, disabled, the account deleted), its connections are checked;
 * - a connection's item removed (`USER#<id>` / `RTCONN#<connectionId>`, by an account's purge, the
 *   TTL or a $disconnect): a connection lives only while its item does, so it is ended (one already
 *   closed is gone, and nothing happens).
 */
export const CHANGE_ENTRY_PREFIX = 'CHANGE#';
export const PROFILE_SORT_KEY = 'PROFILE';
export const CONNECTION_PREFIX = 'RTCONN#';
const ACCOUNT_PARTITION = /^USER#(\d{1,16})$/;

export interface WrittenItem {
  pk: string;
  sk: string;
  /** The item was deleted (a stream's REMOVE, a DeleteItem). */
  removed: boolean;
}

export interface Activity {
  accounts: AccountActivity[];
  /** Connections whose items were removed. */
  removedConnections: string[];
}

export function accountActivity(items: Iterable<WrittenItem>): Activity {
  const accounts = new Map<number, boolean>();
  const removedConnections: string[] = [];
  for (const { pk, sk, removed } of items) {
    const match = ACCOUNT_PARTITION.exec(pk);
    if (!match) continue;
    const userId = Number(match[1]);
    if (sk.startsWith(CHANGE_ENTRY_PREFIX) && !removed) accounts.set(userId, true);
    else if (sk === PROFILE_SORT_KEY) accounts.set(userId, accounts.get(userId) ?? false);
    else if (sk.startsWith(CONNECTION_PREFIX) && removed) removedConnections.push(sk.slice(CONNECTION_PREFIX.length));
  }
  return { accounts: [...accounts].map(([userId, changed]) => ({ userId, changed })), removedConnections };
}
