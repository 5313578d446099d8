import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { AppContext } from '../../shared/context';
import { declarationOf, SessionEndedError } from '../../shared/errors';
import { InvocationMetrics } from '../../shared/ports/metrics';
import { accountActivity } from '../../shared/realtime/activity';
import type { WrittenItem } from '../../shared/realtime/activity';
import { endRemovedConnections, fanOut, PONG, SESSION_ENDED_MESSAGE } from '../../shared/realtime/fan-out';
import type { AccountActivity, ConnectionSender } from '../../shared/realtime/fan-out';
import type { PushSender } from '../../shared/ports/push';
import { admitConnection, CLOSE_SESSION_ENDED, connectionClosed, LOCAL_REALTIME_PATH, RealtimeTicketInvalidError } from '../../shared/realtime/realtime-service';
import type { SessionRef } from '../../shared/db/realtime-repository';

/**
 * The live channel in local mode (docs/realtime.md): what API Gateway's WebSocket API and the
 * table's stream do on AWS, on the local server's own port through the `ws` package.
 *
 * - `GET /realtime?ticket=...` upgrades once the ticket is spent by the same `admitConnection` the
 *   AWS `$connect` authorizer calls; a refused one never upgrades (401 for a ticket spent, expired
 *   or forged; 403 for an ended session), with the JSON error body.
 * - `{"type":"ping"}` answers `{"type":"pong"}`; a connection closes after REALTIME_IDLE_SECONDS
 *   without a message from the client and after REALTIME_MAX_CONNECTION_SECONDS in any case
 *   (1001), as API Gateway's 10 minutes and 2 hours.
 * - The stream: a middleware on the server's DynamoDB client sees every write that succeeded and
 *   hands the accounts whose change-feed entries or profiles it wrote (shared/realtime/activity.ts,
 *   the stream's filter on AWS) to the same `fanOut`, at once: pokes to the account's
 *   connections, and 4001 for those whose session ended. A hook on writes rather than a poll of
 *   the table: nothing is missed between polls, and it costs nothing while nothing changes.
 */

type Live = { socket: WebSocket; ref: SessionRef; timers: NodeJS.Timeout[] };

/** Node's WebSocket opening refused before the upgrade, as API Gateway refuses it: a status and the JSON error. */
function refuse(socket: Duplex, status: number, body: unknown) {
  const text = JSON.stringify(body);
  socket.end(`HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
}

/** The keys of the items a DynamoDB write command wrote (its input as the document client passes it). */
export function writtenItems(commandName: string, input: Record<string, unknown>): WrittenItem[] {
  const keyOf = (item: unknown, removed: boolean): WrittenItem[] => {
    const record = item as Record<string, unknown> | undefined;
    return typeof record?.PK === 'string' && typeof record.SK === 'string' ? [{ pk: record.PK, sk: record.SK, removed }] : [];
  };
  switch (commandName) {
    case 'PutItemCommand':
      return keyOf(input.Item, false);
    case 'UpdateItemCommand':
      return keyOf(input.Key, false);
    case 'DeleteItemCommand':
      return keyOf(input.Key, true);
    case 'TransactWriteItemsCommand':
      return ((input.TransactItems ?? []) as Record<string, { Item?: unknown; Key?: unknown }>[]).flatMap((write) => [
        ...keyOf(write.Put?.Item, false),
        ...keyOf(write.Update?.Key, false),
        ...keyOf(write.Delete?.Key, true),
      ]);
    case 'BatchWriteItemCommand':
      return Object.values((input.RequestItems ?? {}) as Record<string, { PutRequest?: { Item: unknown }; DeleteRequest?: { Key: unknown } }[]>).flatMap((writes) =>
        writes.flatMap((write) => [...keyOf(write.PutRequest?.Item, false), ...keyOf(write.DeleteRequest?.Key, true)]),
      );
    default:
      return [];
  }
}

export interface LocalRealtime {
  /** Open connections of this server. */
  readonly size: number;
  /** Resolves once every fan-out started so far has finished (tests). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export function attachRealtime(server: Server, context: AppContext, pusher?: PushSender): LocalRealtime {
  const cfg = context.config;
  const wss = new WebSocketServer({ noServer: true });
  // This server's connections only: another local server on the same table keeps its own.
  const serverId = randomBytes(6).toString('base64url');
  const open = new Map<string, Live>();
  const log = context.logging.logger();
  const count = (record: (metrics: InvocationMetrics) => void) => {
    const metrics = new InvocationMetrics();
    record(metrics);
    context.metrics.publish(metrics.drain());
  };

  const sender: ConnectionSender & { owns(connectionId: string): boolean } = {
    owns: (connectionId) => connectionId.startsWith(`${serverId}-`),
    send: async (connectionId, message) => {
      const live = open.get(connectionId);
      if (!live || live.socket.readyState !== WebSocket.OPEN) return 'gone';
      live.socket.send(message);
      return 'sent';
    },
    end: async (connectionId) => {
      const live = open.get(connectionId);
      if (!live) return;
      live.socket.send(SESSION_ENDED_MESSAGE);
      live.socket.close(CLOSE_SESSION_ENDED, 'SESSION_ENDED');
    },
  };

  // The stream: accounts written since the last fan-out, coalesced while one runs.
  let pending = new Map<number, boolean>();
  let running: Promise<void> | undefined;
  const flush = async (): Promise<void> => {
    while (pending.size > 0) {
      const batch: AccountActivity[] = [...pending].map(([userId, changed]) => ({ userId, changed }));
      pending = new Map();
      const metrics = new InvocationMetrics();
      try {
        await fanOut({ db: context.db, metrics, log, config: context.config, clock: context.clock }, sender, batch, pusher);
      } catch (error) {
        log.error('live channel fan-out failed', { error: error as Error });
      } finally {
        context.metrics.publish(metrics.drain());
      }
    }
  };
  const notice = (activity: AccountActivity[]) => {
    for (const { userId, changed } of activity) pending.set(userId, (pending.get(userId) ?? false) || changed);
    running ??= flush().finally(() => (running = undefined));
  };
  context.db.client.middlewareStack.add(
    (next, handlerContext) => async (args) => {
      const output = await next(args);
      const items = writtenItems(handlerContext.commandName ?? '', args.input as Record<string, unknown>);
      if (items.length > 0 && (open.size > 0 || pusher)) {
        const { accounts, removedConnections } = accountActivity(items);
        // Accounts with a connection here; with the silent push, every account whose records changed too.
        const watched = accounts.filter(({ userId, changed }) => (pusher && changed) || [...open.values()].some((live) => live.ref.userId === userId));
        if (watched.length > 0) notice(watched);
        if (removedConnections.length > 0) void endRemovedConnections(sender, removedConnections);
      }
      return output;
    },
    { step: 'initialize', name: 'localRealtimeStream', priority: 'low' },
  );

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== LOCAL_REALTIME_PATH) {
      refuse(socket, 404, { code: 404, message: 'Not found', error: 'NOT_FOUND' });
      return;
    }
    const connectionId = `${serverId}-${randomBytes(9).toString('base64url')}`;
    admitConnection(context, url.searchParams.get('ticket') ?? undefined, connectionId).then(
      (ref) => {
        wss.handleUpgrade(request, socket, head, (ws) => {
          const live: Live = { socket: ws, ref, timers: [] };
          open.set(connectionId, live);
          count((metrics) => metrics.count('RealtimeConnectionsOpened'));
          let idle: NodeJS.Timeout | undefined;
          const resetIdle = () => {
            if (idle) clearTimeout(idle);
            idle = setTimeout(() => ws.close(1001, 'IDLE'), cfg.REALTIME_IDLE_SECONDS * 1000);
          };
          resetIdle();
          live.timers.push(setTimeout(() => ws.close(1001, 'MAX_CONNECTION_TIME'), cfg.REALTIME_MAX_CONNECTION_SECONDS * 1000));
          ws.on('message', (data) => {
            resetIdle();
            let message: unknown;
            try {
              message = JSON.parse(String(data));
            } catch {
              message = undefined;
            }
            if ((message as { type?: unknown } | undefined)?.type === 'ping') ws.send(PONG);
          });
          ws.on('close', () => {
            if (idle) clearTimeout(idle);
            for (const timer of live.timers) clearTimeout(timer);
            open.delete(connectionId);
            // $disconnect: the item goes (whatever closed it).
            connectionClosed(context.db, ref.userId, connectionId).catch((error: unknown) => log.warn('connection item not removed; its TTL will', { error: error as Error }));
          });
          ws.on('error', () => ws.terminate());
        });
      },
      (error: unknown) => {
        const reason = error instanceof SessionEndedError ? 'session-ended' : error instanceof RealtimeTicketInvalidError ? 'ticket' : 'error';
        count((metrics) => metrics.count('RealtimeConnectionsRefused', reason));
        // As API Gateway answers the authorizer: its Unauthorized is 401, its Deny 403.
        if (error instanceof RealtimeTicketInvalidError) return refuse(socket, 401, { code: 401, message: error.message, error: RealtimeTicketInvalidError.code });
        if (error instanceof SessionEndedError) return refuse(socket, 403, { code: 403, message: error.message, error: error.code });
        const declaration = declarationOf(error);
        if (!declaration) log.error('live channel connect failed', { error: error as Error });
        refuse(socket, declaration?.http.status ?? 500, declaration ? { code: declaration.http.code, message: (error as Error).message, error: declaration.code } : { code: 500, message: 'Internal server error', error: 'INTERNAL_ERROR' });
      },
    );
  };
  server.on('upgrade', onUpgrade);

  return {
    get size() {
      return open.size;
    },
    settled: async () => {
      while (running) await running;
    },
    close: async () => {
      server.off('upgrade', onUpgrade);
      for (const live of open.values()) live.socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      while (running) await running;
    },
  };
}
