import { describe, expect, it } from 'vitest';
import { FAN_OUT_RETRY_ATTEMPTS } from '../../infra/constructs/realtime-area';
import { jobs, realtimeFunctions, routeId, routes as ALL_ROUTES } from '../../shared/routes';
import { allowedActions, asArray, functionIdByDescription, ofType, refOf, statementsOfFunction, synthesize, synthesizeOnce } from './synth';

/**
 * The live channel on AWS (issue 45, infra/constructs/realtime-area.ts): the WebSocket API in a
 * nested stack of its own, its ticket authorizer, the stream fan-out with bisect, a retry limit and
 * a dead-letter queue with an alarm, and the management API granted only to the function that sends.
 */
const synth = synthesizeOnce({}, { bundle: false });
const { resources } = synth;
const live = synth.stacks.find((each) => each.stack.node.id === 'LiveChannel')!;

describe('the live channel', () => {
  it('is a WebSocket API with its own throttled stage, in a nested stack of its own', () => {
    expect(live).toBeDefined();
    const [[apiId, api]] = ofType(live.json.Resources, 'AWS::ApiGatewayV2::Api') as [[string, any]];
    expect(api.Properties).toMatchObject({ ProtocolType: 'WEBSOCKET', RouteSelectionExpression: '$request.body.action' });
    const stages = ofType(live.json.Resources, 'AWS::ApiGatewayV2::Stage');
    expect(stages).toHaveLength(1);
    const stage = stages[0]![1].Properties;
    expect(refOf(stage.ApiId)).toBe(apiId);
    expect(stage.StageName).toBe('dev');
    expect(stage.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: expect.any(Number), ThrottlingBurstLimit: expect.any(Number) });
    expect(stage.AccessLogSettings.DestinationArn).toBeDefined();
    // None of it in the parent stack or an area's.
    for (const other of synth.stacks.filter((each) => each !== live)) expect(ofType(other.json.Resources, 'AWS::ApiGatewayV2::Api')).toEqual([]);
  });

  it('authorizes $connect with the ticket (a REQUEST authorizer on the query), and routes $disconnect and the default route (two-way, for ping)', () => {
    const [[authorizerId, authorizer]] = ofType(resources, 'AWS::ApiGatewayV2::Authorizer') as [[string, any]];
    expect(authorizer.Properties).toMatchObject({ AuthorizerType: 'REQUEST', IdentitySource: ['route.request.querystring.ticket'] });
    const routes = Object.fromEntries(ofType(resources, 'AWS::ApiGatewayV2::Route').map(([, route]) => [route.Properties.RouteKey, route.Properties]));
    expect(Object.keys(routes).sort()).toEqual(['$connect', '$default', '$disconnect']);
    expect(routes.$connect).toMatchObject({ AuthorizationType: 'CUSTOM' });
    expect(refOf(routes.$connect.AuthorizerId)).toBe(authorizerId);
    expect(routes.$default.RouteResponseSelectionExpression).toBe('$default');
    const authorizerFunction = functionIdByDescription(resources, 'live channel: $connect authorizer (spends the ticket)');
    expect(JSON.stringify(authorizer.Properties.AuthorizerUri)).toContain(authorizerFunction);
  });

  it('reads the table\'s stream (keys only), filtered to change-feed entries, profiles and removed connections, bisecting a failing batch, a retry limit, a dead-letter queue', () => {
    const [, table] = ofType(resources, 'AWS::DynamoDB::Table')[0]!;
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: 'KEYS_ONLY' });
    const mappings = ofType(resources, 'AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(1);
    const mapping = mappings[0]![1].Properties;
    expect(refOf(mapping.FunctionName)).toBe(functionIdByDescription(resources, 'live channel: fan-out of the table stream (pokes, ended sessions)'));
    expect(mapping).toMatchObject({ BisectBatchOnFunctionError: true, MaximumRetryAttempts: FAN_OUT_RETRY_ATTEMPTS, StartingPosition: 'LATEST' });
    const patterns = mapping.FilterCriteria.Filters.map((filter: { Pattern: string }) => JSON.parse(filter.Pattern));
    expect(patterns).toContainEqual({ eventName: ['INSERT', 'MODIFY'], dynamodb: { Keys: { SK: { S: [{ prefix: 'CHANGE#' }] } } } });
    expect(patterns).toContainEqual({ dynamodb: { Keys: { SK: { S: ['PROFILE'] } } } });
    expect(patterns).toContainEqual({ eventName: ['REMOVE'], dynamodb: { Keys: { SK: { S: [{ prefix: 'RTCONN#' }] } } } });
    const queueId = Object.entries(resources).find(([, resource]) => resource.Type === 'AWS::SQS::Queue')![0];
    expect(JSON.stringify(mapping.DestinationConfig.OnFailure)).toContain(queueId);
    const alarms = ofType(resources, 'AWS::CloudWatch::Alarm').filter(([, alarm]) => alarm.Properties.MetricName === 'ApproximateNumberOfMessagesVisible');
    expect(alarms).toHaveLength(1);
    expect(JSON.stringify(alarms[0]![1].Properties.Dimensions)).toContain(queueId);
  });

  it('grants the management API (execute-api:ManageConnections) only to the function that sends, on this API\'s connections', () => {
    const granted = ofType(resources, 'AWS::Lambda::Function')
      .filter(([id]) => allowedActions(statementsOfFunction(resources, id)).includes('execute-api:ManageConnections'))
      .map(([, fn]) => fn.Properties.Description);
    expect(granted).toEqual(Object.values(realtimeFunctions).filter((definition) => definition.sends).map(() => 'live channel: fan-out of the table stream (pokes, ended sessions)'));
    const fanOut = functionIdByDescription(resources, 'live channel: fan-out of the table stream (pokes, ended sessions)');
    const statement = statementsOfFunction(resources, fanOut).find((candidate) => asArray(candidate.Action).includes('execute-api:ManageConnections'))!;
    expect(JSON.stringify(statement.Resource)).toMatch(/\/dev\/\*\/@connections\/\*/);
    // Its management endpoint is a setting of that function only.
    const withEndpoint = ofType(resources, 'AWS::Lambda::Function').filter(([, fn]) => fn.Properties.Environment?.Variables?.REALTIME_MANAGEMENT_URL !== undefined);
    expect(withEndpoint.map(([id]) => id)).toEqual([fanOut]);
  });

  it('gives the WebSocket address to the ticket\'s function only, and the table grants each function declares', () => {
    const withUrl = ofType(resources, 'AWS::Lambda::Function').filter(([, fn]) => fn.Properties.Environment?.Variables?.REALTIME_URL !== undefined);
    expect(withUrl.map(([, fn]) => fn.Properties.Description)).toEqual(['POST /api/realtime/ticket']);
    const tableActions = (description: string) =>
      allowedActions(statementsOfFunction(resources, functionIdByDescription(resources, description))).filter((action) => action.startsWith('dynamodb:')).sort();
    expect(tableActions('live channel: $connect authorizer (spends the ticket)')).toEqual(realtimeFunctions.connectAuthorizer.dynamodb.actions.map((action) => `dynamodb:${action}`).sort());
    expect(tableActions('live channel: $connect, $disconnect, ping')).toEqual(['dynamodb:DeleteItem']);
  });

  it('without the silent push, no function of the channel reads the provider secret or gets the push settings', () => {
    for (const [, fn] of ofType(live.json.Resources, 'AWS::Lambda::Function')) {
      expect(Object.keys(fn.Properties.Environment?.Variables ?? {}).filter((name) => /^(SOCIAL|APNS|FCM|PUSH)_/.test(name))).toEqual([]);
    }
  });
});

describe('the silent push (-c silentPush=true)', () => {
  const pushed = synthesizeOnce({ silentPush: 'true', APNS_TEAM_ID: 'TEAM123456', APNS_KEY_ID: 'KEY1234567', APNS_TOPIC: 'com.example.captions', PUSH_MIN_INTERVAL_SECONDS: '1800' }, { bundle: false });
  const channel = pushed.stacks.find((each) => each.stack.node.id === 'LiveChannel')!;
  const fanOut = functionIdByDescription(pushed.resources, 'live channel: fan-out of the table stream (pokes, ended sessions)');
  const readsSecrets = (id: string) =>
    statementsOfFunction(pushed.resources, id).some((statement) => statement.Effect === 'Allow' && asArray(statement.Action).includes('secretsmanager:GetSecretValue'));

  it('makes the provider secret and gives its ARN, its read and the push settings to the fan-out only', () => {
    const secrets = ofType(pushed.resources, 'AWS::SecretsManager::Secret').filter(([, secret]) => /Apple/.test(secret.Properties.Description));
    expect(secrets).toHaveLength(1);
    const variables = pushed.resources[fanOut]!.Properties.Environment.Variables;
    expect(variables).toMatchObject({ APNS_TEAM_ID: 'TEAM123456', APNS_KEY_ID: 'KEY1234567', APNS_TOPIC: 'com.example.captions', APNS_URL: 'https://api.push.apple.com', FCM_URL: 'https://fcm.googleapis.com', FCM_TOKEN_URL: 'https://oauth2.googleapis.com/token', PUSH_MIN_INTERVAL_SECONDS: '1800' });
    expect(variables.SOCIAL_SECRET_ARN).toBeDefined();
    expect(readsSecrets(fanOut)).toBe(true);
    // The push settings: no other function. The secret: besides the fan-out, only those that read Apple's key or WeChat's
    // secrets from it whenever it exists (routes with `providerSecret`, the job revoking Apple tokens: test/infra/stages.test.ts).
    const appleReaders = new Set([
      ...ALL_ROUTES.filter((route) => route.providerSecret).map(routeId),
      ...jobs.filter((job) => job.providerSecret).map((job) => `job ${job.name} (${job.schedule})`),
    ]);
    for (const [id, fn] of ofType(pushed.resources, 'AWS::Lambda::Function')) {
      if (id === fanOut) continue;
      const names = Object.keys(fn.Properties.Environment?.Variables ?? {});
      expect(names.filter((name) => /^(APNS|FCM|PUSH)_/.test(name)), fn.Properties.Description).toEqual([]);
      expect(names.includes('SOCIAL_SECRET_ARN'), fn.Properties.Description).toBe(appleReaders.has(fn.Properties.Description));
    }
    for (const [id] of ofType(channel.json.Resources, 'AWS::Lambda::Function')) if (id !== fanOut) expect(readsSecrets(id)).toBe(false);
    // The keys are never settings.
    for (const [, fn] of ofType(pushed.resources, 'AWS::Lambda::Function')) {
      expect(Object.keys(fn.Properties.Environment?.Variables ?? {}).filter((name) => /PRIVATE|SERVICE_ACCOUNT/.test(name))).toEqual([]);
    }
  });

  it('refuses APNs settings given in part', () => {
    expect(() => synthesize({ silentPush: 'true', APNS_TEAM_ID: 'TEAM123456' }, { bundle: false })).toThrow(/APNS_TEAM_ID.*APNS_KEY_ID.*APNS_TOPIC/);
  });
});
