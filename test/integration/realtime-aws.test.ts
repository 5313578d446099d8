import { ApiGatewayManagementApiClient, DeleteConnectionCommand, GoneException, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayRequestAuthorizerEvent, DynamoDBStreamEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handler as connectAuthorizer } from '../../functions/realtime/connect-authorizer';
import { handler as connection } from '../../functions/realtime/connection';
import { handler as fanOut } from '../../functions/realtime/fan-out';
import type { AppContext } from '../../shared/context';
import { startPushStandIns } from '../../infra/local/push-stand-ins';
import { startLocalApi, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { ticketFor } from '../support/realtime';
import { sessionHelpers } from '../support/sessions';
import type { Signed } from '../support/sessions';

/**
 * The live channel's AWS functions (issue 45, docs/realtime.md) against DynamoDB Local, with API
 * Gateway's management API stubbed (aws-sdk-client-mock; it cannot run here): the $connect
 * authorizer spends tickets, the fan-out sends one poke per connection of each changed account
 * per batch, removes a gone connection, and deletes the connections of an ended session.
 */
let api: LocalApi;
let app: AppContext;
const management = mockClient(ApiGatewayManagementApiClient);

beforeAll(async () => {
  api = await startLocalApi({ CODE_RESEND_SECONDS: '1' });
  // The local server's context (its table, clock and ports) with the setting the fan-out's function gets on AWS.
  app = Object.assign(Object.create(api.context) as AppContext, { config: { ...api.config, REALTIME_MANAGEMENT_URL: 'https://abc123.execute-api.us-east-1.amazonaws.com/dev' } });
});
afterAll(async () => {
  management.restore();
  await api?.close();
});
beforeEach(() => management.reset());

const authorize = (ticket: string | undefined, connectionId: string) =>
  connectAuthorizer.withContext(app)({
    type: 'REQUEST',
    methodArn: 'arn:aws:execute-api:us-east-1:123456789012:abc123/dev/$connect',
    queryStringParameters: ticket === undefined ? {} : { ticket },
    requestContext: { connectionId, routeKey: '$connect', eventType: 'CONNECT' },
  } as unknown as APIGatewayRequestAuthorizerEvent);

const connect = async (signed: Signed, connectionId: string) => {
  const result = await authorize((await ticketFor(api, signed.token)).ticket, connectionId);
  expect(result.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
  return result;
};

const streamOf = (...records: { userId: number; sk: string; eventName?: 'INSERT' | 'MODIFY' | 'REMOVE' }[]): DynamoDBStreamEvent => ({
  Records: records.map(({ userId, sk, eventName = 'INSERT' }) => ({ eventName, dynamodb: { Keys: { PK: { S: `USER#${userId}` }, SK: { S: sk } } } })),
});

const connectionIds = async (userId: number) =>
  (
    (
      await api.db.client.send(
        new QueryCommand({ TableName: api.db.tableName, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)', ExpressionAttributeValues: { ':pk': `USER#${userId}`, ':sk': 'RTCONN#' } }),
      )
    ).Items ?? []
  )
    .map((item) => item.connectionId as string)
    .sort();

const posted = () => management.commandCalls(PostToConnectionCommand).map((call) => ({ to: call.args[0].input.ConnectionId, data: new TextDecoder().decode(call.args[0].input.Data as Uint8Array) }));

describe('the $connect authorizer', () => {
  it('admits a ticket once (its context names the account and session), refuses it again, a forged one and an ended session\'s', async () => {
    const helpers = sessionHelpers(api);
    const signed = await helpers.signIn(uniqueEmail('aws-connect'));
    const { ticket } = await ticketFor(api, signed.token);
    const admitted = await authorize(ticket, 'conn-once');
    expect(admitted).toMatchObject({ principalId: String(signed.userId), context: { userId: signed.userId, sessionId: expect.any(String) } });
    await expect(authorize(ticket, 'conn-again')).rejects.toThrow('Unauthorized');
    await expect(authorize(`${ticket.slice(0, -2)}xx`, 'conn-forged')).rejects.toThrow('Unauthorized');
    await expect(authorize(undefined, 'conn-none')).rejects.toThrow('Unauthorized');
    const later = (await ticketFor(api, signed.token)).ticket;
    expect((await api.request('POST', '/api/auth/logout', { token: signed.token, body: { refreshToken: signed.refreshToken } })).status).toBe(200);
    expect((await authorize(later, 'conn-ended')).policyDocument.Statement[0]).toMatchObject({ Effect: 'Deny' });
    expect(await connectionIds(signed.userId)).toEqual(['conn-once']);
  });
});

describe('the connection routes', () => {
  it('answer a ping with a pong and remove the connection on $disconnect', async () => {
    const signed = await sessionHelpers(api).signIn(uniqueEmail('aws-routes'));
    await connect(signed, 'conn-routes');
    const route = connection.withContext(app);
    const event = (routeKey: string, body?: string) => ({ body, requestContext: { routeKey, connectionId: 'conn-routes', authorizer: { userId: String(signed.userId) } } }) as never;
    expect(await route(event('$default', '{"type":"ping"}'))).toEqual({ statusCode: 200, body: '{"type":"pong"}' });
    expect(await route(event('$default', 'hello'))).toEqual({ statusCode: 200, body: '' });
    await route(event('$disconnect'));
    expect(await connectionIds(signed.userId)).toEqual([]);
  });
});

describe('the fan-out on the stream', () => {
  it('sends one poke per connection of the changed account however many changes the batch holds, none to another account, and removes a gone connection', async () => {
    const helpers = sessionHelpers(api);
    const email = uniqueEmail('aws-fan-out');
    const phone = await helpers.signIn(email);
    const tablet = await helpers.signIn(email);
    const stranger = await helpers.signIn(uniqueEmail('aws-stranger'));
    await connect(phone, 'conn-phone');
    await connect(tablet, 'conn-tablet-gone');
    await connect(stranger, 'conn-stranger');
    management.on(PostToConnectionCommand, { ConnectionId: 'conn-tablet-gone' }).rejects(new GoneException({ message: 'Gone', $metadata: {} }));
    management.on(PostToConnectionCommand, { ConnectionId: 'conn-phone' }).resolves({});

    const result = await fanOut.withContext(app)(
      streamOf(
        { userId: phone.userId, sk: 'CHANGE#0000000000000001' },
        { userId: phone.userId, sk: 'CHANGE#0000000000000002' },
        { userId: phone.userId, sk: 'CHANGE#0000000000000003', eventName: 'MODIFY' },
        { userId: phone.userId, sk: 'PROFILE', eventName: 'MODIFY' },
      ),
    );
    expect(result).toEqual({ poked: 1, gone: 1, ended: 0, pushed: 0 });
    expect(posted().sort((a, b) => String(a.to).localeCompare(String(b.to)))).toEqual([
      { to: 'conn-phone', data: '{"type":"changes"}' },
      { to: 'conn-tablet-gone', data: '{"type":"changes"}' },
    ]);
    expect(await connectionIds(phone.userId)).toEqual(['conn-phone']);
    expect(await connectionIds(stranger.userId)).toEqual(['conn-stranger']);
  });

  it('closes the connections of an ended session through the management API, and a purged connection\'s too', async () => {
    const helpers = sessionHelpers(api);
    const email = uniqueEmail('aws-ended');
    const ending = await helpers.signIn(email);
    const staying = await helpers.signIn(email);
    await connect(ending, 'conn-ending');
    await connect(staying, 'conn-staying');
    management.on(PostToConnectionCommand).resolves({});
    management.on(DeleteConnectionCommand).resolves({});
    expect((await api.request('POST', '/api/auth/logout', { token: ending.token, body: { refreshToken: ending.refreshToken } })).status).toBe(200);

    // The sign-out wrote the profile: its stream record alone (no change) closes the ended session's connection, pokes nobody.
    const result = await fanOut.withContext(app)(streamOf({ userId: ending.userId, sk: 'PROFILE', eventName: 'MODIFY' }));
    expect(result).toEqual({ poked: 0, gone: 0, ended: 1, pushed: 0 });
    expect(posted()).toEqual([{ to: 'conn-ending', data: '{"type":"session-ended","code":4001}' }]);
    expect(management.commandCalls(DeleteConnectionCommand).map((call) => call.args[0].input.ConnectionId)).toEqual(['conn-ending']);
    expect(await connectionIds(ending.userId)).toEqual(['conn-staying']);

    // A connection item removed (an account's purge, the TTL): the connection goes too; one already gone is no error.
    management.reset();
    management.on(PostToConnectionCommand).rejects(new GoneException({ message: 'Gone', $metadata: {} }));
    await fanOut.withContext(app)(streamOf({ userId: staying.userId, sk: 'RTCONN#conn-staying', eventName: 'REMOVE' }));
    expect(posted()).toEqual([{ to: 'conn-staying', data: '{"type":"session-ended","code":4001}' }]);
  });
});

describe('the silent push from the fan-out on AWS', () => {
  it('with the push secret\'s ARN, pushes to the closed app with a token and pokes the open one, in the same batch', async () => {
    const standIns = await startPushStandIns();
    try {
      // The settings the stack gives the fan-out with -c silentPush=true, and the keys its Secrets Manager read would answer.
      const pushing = Object.assign(Object.create(api.context) as AppContext, {
        config: {
          ...app.config,
          PUSH_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:PushSecret-abc123',
          APNS_URL: standIns.apnsUrl,
          APNS_TEAM_ID: standIns.apns.teamId,
          APNS_KEY_ID: standIns.apns.keyId,
          APNS_TOPIC: standIns.apns.topic,
          FCM_URL: standIns.fcmUrl,
          FCM_TOKEN_URL: standIns.fcmTokenUrl,
        },
        pushKeys: async () => ({ apnsPrivateKey: standIns.apns.privateKeyPem, fcmServiceAccount: standIns.fcm.serviceAccount }),
      });
      const helpers = sessionHelpers(api);
      const email = uniqueEmail('aws-push');
      const phone = await helpers.signIn(email);
      const tablet = await helpers.signIn(email);
      const token = 'ab'.repeat(32);
      expect((await api.request('PUT', '/api/auth/sessions/current/push', { token: phone.token, body: { platform: 'apns', token } })).status).toBe(200);
      await connect(tablet, 'conn-tablet-open');
      management.on(PostToConnectionCommand).resolves({});
      const result = await fanOut.withContext(pushing)(streamOf({ userId: phone.userId, sk: 'CHANGE#0000000000000001' }));
      expect(result).toEqual({ poked: 1, gone: 0, ended: 0, pushed: 1 });
      expect(standIns.delivered.map((delivery) => delivery.token)).toEqual([token]);
      expect(posted()).toEqual([{ to: 'conn-tablet-open', data: '{"type":"changes"}' }]);
    } finally {
      await standIns.close();
    }
  });
});
