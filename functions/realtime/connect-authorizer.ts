import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { powertoolsMetricSink } from '../../shared/adapters/powertools-metrics';
import { perContainer } from '../../shared/context';
import type { AppContext } from '../../shared/context';
import { database } from '../../shared/db/client';
import { SessionEndedError } from '../../shared/errors';
import { InvocationMetrics } from '../../shared/ports/metrics';
import { admitConnection, RealtimeTicketInvalidError } from '../../shared/realtime/realtime-service';

type ConnectAuthorizer = (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

/**
 * The WebSocket API's `$connect` REQUEST authorizer (docs/realtime.md): spends the ticket in the
 * query with `admitConnection`, the local server's own rule, so a ticket spent, expired, forged or
 * of an ended session is refused before the connection exists (Unauthorized: 401; an ended
 * session: Deny, 403). Its context (account, session) reaches `$disconnect` and the default route.
 */
const withContext =
  (app: AppContext): ConnectAuthorizer =>
  async (event) => {
    const metrics = new InvocationMetrics();
    try {
      const ref = await admitConnection(app, event.queryStringParameters?.ticket ?? undefined, event.requestContext.connectionId!);
      metrics.count('RealtimeConnectionsOpened');
      return policy(String(ref.userId), 'Allow', event.methodArn, { userId: ref.userId, sessionId: ref.sessionId, tokenVersion: ref.tokenVersion });
    } catch (error) {
      if (error instanceof RealtimeTicketInvalidError) {
        metrics.count('RealtimeConnectionsRefused', 'ticket');
        throw new Error('Unauthorized');
      }
      if (error instanceof SessionEndedError) {
        metrics.count('RealtimeConnectionsRefused', 'session-ended');
        return policy('ended', 'Deny', event.methodArn);
      }
      throw error;
    } finally {
      app.metrics.publish(metrics.drain());
    }
  };

const policy = (principalId: string, effect: 'Allow' | 'Deny', resource: string, context?: Record<string, string | number>): APIGatewayAuthorizerResult => ({
  principalId,
  policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: resource }] },
  ...(context ? { context } : {}),
});

export const handler = perContainer(withContext, { database, metrics: (cfg) => powertoolsMetricSink(cfg.SERVICE_NAME) });
