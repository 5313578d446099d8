import type { DynamoDBStreamEvent } from 'aws-lambda';
import { managementApiSender } from '../../shared/adapters/aws-connection-sender';
import { powertoolsMetricSink } from '../../shared/adapters/powertools-metrics';
import { pushSender } from '../../shared/adapters/push/push-sender';
import { secretsManagerSource } from '../../shared/adapters/aws-secrets';
import type { PushSender } from '../../shared/ports/push';
import { perContainer } from '../../shared/context';
import type { AppContext } from '../../shared/context';
import { database } from '../../shared/db/client';
import { InvocationMetrics } from '../../shared/ports/metrics';
import { accountActivity } from '../../shared/realtime/activity';
import { endRemovedConnections, fanOut } from '../../shared/realtime/fan-out';
import type { ConnectionSender, FanOutResult } from '../../shared/realtime/fan-out';

/**
 * The live channel's fan-out on AWS (docs/realtime.md): reads the table's stream (keys only),
 * filtered by the event source to change-feed entries, profiles and removed connections
 * (infra/constructs/realtime-area.ts), and gives the batch to `fanOut`: one poke per connection
 * of each account that changed, however many changes the batch holds; connections whose session
 * ended closed through the management API; a gone connection's item removed. A failure fails the
 * batch: the event source bisects it and, after its retries, sends it to the dead-letter queue.
 */
const withContext = (app: AppContext, sender?: ConnectionSender) => {
  let reach: ConnectionSender | undefined = sender;
  // The silent push, where the stack gave the push secret (push is set up: docs/realtime.md#the-silent-push).
  let pusher: PushSender | undefined;
  return async (event: DynamoDBStreamEvent): Promise<FanOutResult> => {
    reach ??= managementApiSender(app.config);
    if (!pusher && app.config.PUSH_SECRET_ARN) {
      const log = app.logging.logger();
      pusher = pushSender(app.config, () => app.pushKeys(), (platform, reason) => log.warn('a push was not taken', { platform, reason }));
    }
    const items = event.Records.flatMap((record) => {
      const pk = record.dynamodb?.Keys?.PK?.S;
      const sk = record.dynamodb?.Keys?.SK?.S;
      return pk && sk ? [{ pk, sk, removed: record.eventName === 'REMOVE' }] : [];
    });
    const { accounts, removedConnections } = accountActivity(items);
    const metrics = new InvocationMetrics();
    try {
      await endRemovedConnections(reach, removedConnections);
      return await fanOut({ db: app.db, metrics, log: app.logging.logger(), config: app.config, clock: app.clock }, reach, accounts, pusher);
    } finally {
      app.metrics.publish(metrics.drain());
    }
  };
};

// The push secret through Secrets Manager, where the stack gave its ARN (the silent push's keys).
export const handler = perContainer((app) => withContext(app), { database, metrics: (cfg) => powertoolsMetricSink(cfg.SERVICE_NAME), secrets: (cfg) => secretsManagerSource(cfg) });
