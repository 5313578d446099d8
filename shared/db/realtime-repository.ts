import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { Database } from './client';
import { keys, sortKeyPrefix } from './keys';
import { queryRange, sortKeyRange } from './pagination';
import { SORT_KEY, TTL_ATTRIBUTE } from './table';
import type { GuardedWrite } from './transactions';
import { DISABLED_ATTRIBUTE, tokenIsCurrentCondition } from './users-repository';
import type { TokenSubject } from './users-repository';

/**
 * The live channel's items (docs/realtime.md), both in the account's partition so that deleting
 * the account removes them with everything else: tickets (`RTTICKET#<sha256 of the secret>`, 60 s)
 * and open connections (`RTCONN#<connectionId>`, while the WebSocket is open).
 */

/** What a ticket or a connection is bound to: the session that asked for it, at the account's token version. */
export interface SessionRef {
  userId: number;
  sessionId: string;
  tokenVersion: number;
}

export interface ConnectionRecord extends SessionRef {
  connectionId: string;
  /** ISO 8601, when the connection was admitted. */
  connectedAt: string;
}

/** The ticket's item, written only while the caller's token is current and the account not disabled. */
export function putTicketWrites(db: Database, caller: TokenSubject & { sessionId: string }, secretHash: string, expiresAt: number, onRefused: () => Error): GuardedWrite[] {
  const current = tokenIsCurrentCondition(caller);
  return [
    {
      item: {
        ConditionCheck: {
          TableName: db.tableName,
          Key: keys.user(caller.userId),
          // The caller's session lives (a disabled account's have ended too; the mark is checked all the same).
          ConditionExpression: `${current.ConditionExpression} AND attribute_not_exists(#disabled)`,
          ExpressionAttributeNames: { ...current.ExpressionAttributeNames, '#disabled': DISABLED_ATTRIBUTE },
          ExpressionAttributeValues: current.ExpressionAttributeValues,
        },
      },
      onConditionFailed: onRefused,
    },
    {
      item: {
        Put: {
          TableName: db.tableName,
          Item: {
            ...keys.realtimeTicket(caller.userId, secretHash),
            sessionId: caller.sessionId,
            tokenVersion: caller.tokenVersion,
            expiresAt,
            // DynamoDB removes it a while after; the spend's condition on expiresAt is what refuses it.
            [TTL_ATTRIBUTE]: expiresAt,
          },
        },
      },
    },
  ];
}

/**
 * Spending a ticket and admitting its connection, one transaction: the ticket deleted on the
 * condition that it exists and has not expired (so of two connections racing with one ticket
 * exactly one gets it), its session still live on the profile and the account not disabled, and
 * the connection's item put. The ticket names its session itself (its hash is the key, so a
 * ticket with another session in it finds no item): no read comes first.
 */
export function admitConnectionWrites(
  db: Database,
  ticket: SessionRef & { secretHash: string },
  connection: { connectionId: string; connectedAt: string; expiresAt: number },
  now: number,
  refusals: { ticket: (old: Record<string, unknown> | undefined) => Error; session: (old: Record<string, unknown> | undefined) => Error },
): GuardedWrite[] {
  const current = tokenIsCurrentCondition(ticket);
  return [
    {
      item: {
        Delete: {
          TableName: db.tableName,
          Key: keys.realtimeTicket(ticket.userId, ticket.secretHash),
          ConditionExpression: 'attribute_exists(#sk) AND expiresAt > :now',
          ExpressionAttributeNames: { '#sk': SORT_KEY },
          ExpressionAttributeValues: { ':now': now },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      onConditionFailed: refusals.ticket,
    },
    {
      item: {
        ConditionCheck: {
          TableName: db.tableName,
          Key: keys.user(ticket.userId),
          ConditionExpression: `${current.ConditionExpression} AND attribute_not_exists(#disabled)`,
          ExpressionAttributeNames: { ...current.ExpressionAttributeNames, '#disabled': DISABLED_ATTRIBUTE },
          ExpressionAttributeValues: current.ExpressionAttributeValues,
        },
      },
      onConditionFailed: refusals.session,
    },
    {
      item: {
        Put: {
          TableName: db.tableName,
          Item: {
            ...keys.realtimeConnection(ticket.userId, connection.connectionId),
            connectionId: connection.connectionId,
            sessionId: ticket.sessionId,
            tokenVersion: ticket.tokenVersion,
            connectedAt: connection.connectedAt,
            // API Gateway closes a connection after 2 hours; the TTL tidies one whose $disconnect never came.
            [TTL_ATTRIBUTE]: connection.expiresAt,
          },
        },
      },
    },
  ];
}

const CONNECTIONS = sortKeyRange(sortKeyPrefix.realtimeConnection);

/** The account's open connections (strongly consistent; at most a few per person, so one page). */
export async function listConnections(db: Database, userId: number): Promise<ConnectionRecord[]> {
  const connections: ConnectionRecord[] = [];
  let start: Record<string, string> | undefined;
  do {
    const page = await queryRange(db, keys.userPartition(userId), CONNECTIONS, start ? { start } : {});
    for (const item of page.Items ?? []) {
      connections.push({
        userId,
        connectionId: String(item.connectionId),
        sessionId: String(item.sessionId),
        tokenVersion: Number(item.tokenVersion),
        connectedAt: String(item.connectedAt),
      });
    }
    start = page.LastEvaluatedKey as Record<string, string> | undefined;
  } while (start);
  return connections;
}

/** A connection closed ($disconnect, gone, its session ended): its item removed, if still there. */
export async function deleteConnection(db: Database, userId: number, connectionId: string): Promise<void> {
  await db.client.send(new DeleteCommand({ TableName: db.tableName, Key: keys.realtimeConnection(userId, connectionId) }));
}
