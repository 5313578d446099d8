import { ApiGatewayManagementApiClient, DeleteConnectionCommand, GoneException, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { timedRequestHandler } from '../config';
import type { Config } from '../config';
import type { ConnectionSender } from '../realtime/fan-out';
import { SESSION_ENDED_MESSAGE } from '../realtime/fan-out';

/**
 * The live channel's sender on AWS: API Gateway's management API (execute-api:ManageConnections,
 * granted only to the functions that send). A connection that no longer exists answers
 * GoneException: 'gone', and the caller removes its item.
 */
export function managementApiSender(cfg: Config): ConnectionSender {
  if (!cfg.REALTIME_MANAGEMENT_URL) throw new Error('REALTIME_MANAGEMENT_URL is not set: this function cannot reach the live channel');
  const client = new ApiGatewayManagementApiClient({
    region: cfg.AWS_REGION,
    endpoint: cfg.REALTIME_MANAGEMENT_URL,
    requestHandler: timedRequestHandler(cfg.AWS_CONNECT_TIMEOUT_MS, cfg.AWS_REQUEST_TIMEOUT_MS),
  });
  const gone = (error: unknown) => error instanceof GoneException || (error as { name?: string }).name === 'GoneException';
  return {
    async send(connectionId, message) {
      try {
        await client.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: new TextEncoder().encode(message) }));
        return 'sent';
      } catch (error) {
        if (gone(error)) return 'gone';
        throw error;
      }
    },
    async end(connectionId) {
      // AWS cannot choose a deletion's close code: the message says 4001 first.
      for (const command of [new PostToConnectionCommand({ ConnectionId: connectionId, Data: new TextEncoder().encode(SESSION_ENDED_MESSAGE) }), new DeleteConnectionCommand({ ConnectionId: connectionId })]) {
        try {
          await client.send(command as PostToConnectionCommand);
        } catch (error) {
          if (!gone(error)) throw error;
          return;
        }
      }
    },
  };
}
