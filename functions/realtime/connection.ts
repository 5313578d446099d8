import type { APIGatewayProxyResult, APIGatewayProxyWebsocketEventV2 } from 'aws-lambda';
import { perContainer } from '../../shared/context';
import type { AppContext } from '../../shared/context';
import { database } from '../../shared/db/client';
import { PONG } from '../../shared/realtime/fan-out';
import { connectionClosed } from '../../shared/realtime/realtime-service';

type WebSocketEvent = APIGatewayProxyWebsocketEventV2 & { requestContext: { authorizer?: { userId?: string | number } } };

/**
 * The WebSocket API's routes other than the authorizer's work (docs/realtime.md): `$connect`
 * accepts (the authorizer admitted it), `$disconnect` removes the connection's item, and the
 * default route answers `{"type":"ping"}` with `{"type":"pong"}` (a two-way route: the answer's
 * body goes back on the connection). Nothing else a client sends does anything.
 */
const withContext =
  (app: AppContext) =>
  async (event: WebSocketEvent): Promise<APIGatewayProxyResult> => {
    const { routeKey, connectionId } = event.requestContext;
    if (routeKey === '$disconnect') {
      const userId = Number(event.requestContext.authorizer?.userId);
      if (Number.isSafeInteger(userId)) await connectionClosed(app.db, userId, connectionId);
      return { statusCode: 200, body: '' };
    }
    if (routeKey === '$default') {
      let message: { type?: unknown } | undefined;
      try {
        message = JSON.parse(event.body ?? '') as { type?: unknown };
      } catch {
        message = undefined;
      }
      return message?.type === 'ping' ? { statusCode: 200, body: PONG } : { statusCode: 200, body: '' };
    }
    return { statusCode: 200, body: '' };
  };

export const handler = perContainer(withContext, { database });
