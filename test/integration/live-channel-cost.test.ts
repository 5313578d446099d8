import { ApiGatewayManagementApiClient, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import type { APIGatewayRequestAuthorizerEvent, DynamoDBStreamEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as connectAuthorizer } from '../../functions/realtime/connect-authorizer';
import { handler as connection } from '../../functions/realtime/connection';
import { handler as fanOut } from '../../functions/realtime/fan-out';
import type { AppContext } from '../../shared/context';
import { consumedCapacityMiddleware, emptyUsage } from '../bench/consumed-capacity';
import type { DynamoUsage } from '../bench/consumed-capacity';
import { LIVE_CHANNEL_WORK } from '../bench/cost-model';
import { startLocalApi, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { ticketFor } from '../support/realtime';
import { sessionHelpers } from '../support/sessions';

/**
 * The live channel's DynamoDB work as the cost model prices it (issue 45, LIVE_CHANNEL_WORK in
 * test/bench/cost-model.ts, docs/cost.md#the-live-channel): the $connect authorizer, $disconnect,
 * a ping and the fan-out of one change, run against DynamoDB Local with the service's client
 * reporting consumed capacity, as npm run cost measures the routes. A change to these functions
 * that reads or writes more fails here until the model's figures follow. Units only, no times.
 */
let api: LocalApi;
let app: AppContext;
let usage: DynamoUsage | undefined;
const management = mockClient(ApiGatewayManagementApiClient);

beforeAll(async () => {
  api = await startLocalApi();
  app = Object.assign(Object.create(api.context) as AppContext, { config: { ...api.config, REALTIME_MANAGEMENT_URL: 'https://abc123.execute-api.us-east-1.amazonaws.com/dev' } });
  app.db.client.middlewareStack.add(...consumedCapacityMiddleware(() => usage));
  management.on(PostToConnectionCommand).resolves({});
});
afterAll(async () => {
  management.restore();
  await api?.close();
});

/** The DynamoDB usage of `work` alone. */
async function measured(work: () => Promise<unknown>): Promise<DynamoUsage> {
  usage = emptyUsage();
  try {
    await work();
    return usage;
  } finally {
    usage = undefined;
  }
}

describe('the live channel\'s DynamoDB work, as the cost model prices it', () => {
  it('a connection: the authorizer\'s transaction, a ping with no request, $disconnect\'s delete; a change: two reads for its account', async () => {
    const signed = await sessionHelpers(api).signIn(uniqueEmail('live-cost'));
    const { ticket } = await ticketFor(api, signed.token);
    const admit = await measured(() =>
      connectAuthorizer.withContext(app)({
        type: 'REQUEST',
        methodArn: 'arn:aws:execute-api:us-east-1:123456789012:abc123/dev/$connect',
        queryStringParameters: { ticket },
        requestContext: { connectionId: 'conn-cost', routeKey: '$connect', eventType: 'CONNECT' },
      } as unknown as APIGatewayRequestAuthorizerEvent),
    );
    const route = connection.withContext(app);
    const event = (routeKey: string, body?: string) => ({ body, requestContext: { routeKey, connectionId: 'conn-cost', authorizer: { userId: String(signed.userId) } } }) as never;
    const ping = await measured(() => route(event('$default', '{"type":"ping"}')));
    const connect = await measured(() => route(event('$connect')));
    const stream: DynamoDBStreamEvent = { Records: [{ eventName: 'INSERT', dynamodb: { Keys: { PK: { S: `USER#${signed.userId}` }, SK: { S: 'CHANGE#0000000000000001' } } } }] };
    const change = await measured(() => fanOut.withContext(app)(stream));
    const disconnect = await measured(() => route(event('$disconnect')));
    // One transaction of three items (the ticket spent, the profile checked, the connection put), billed per item.
    expect(admit).toMatchObject({ requests: 1, readUnits: 0, writeUnitsPerItemFloor: LIVE_CHANNEL_WORK.admitWriteUnits });
    // The ping is answered and $connect accepted without a request: the model prices their invocations only.
    expect(ping.requests).toBe(0);
    expect(connect.requests).toBe(0);
    expect(disconnect).toMatchObject({ requests: 1, readUnits: 0, writeUnitsPerItemFloor: LIVE_CHANNEL_WORK.disconnectWriteUnits });
    // The fan-out of a change reads the account's connections and its profile, and writes nothing.
    expect(change).toMatchObject({ readUnits: LIVE_CHANNEL_WORK.fanOutReadUnitsPerAccount, writeUnits: 0 });
    expect(change.commands).toEqual(['QueryCommand', 'GetItemCommand']);
    expect(management.commandCalls(PostToConnectionCommand).map((call) => call.args[0].input.ConnectionId)).toEqual(['conn-cost']);
  });
});
