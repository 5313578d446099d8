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

  it('without the silent push, no push secret, and no function of the channel reads a provider\'s secret or gets the push settings', () => {
    expect(ofType(resources, 'AWS::SecretsManager::Secret').filter(([, secret]) => /^Silent push/.test(secret.Properties.Description))).toEqual([]);
    expect(synth.template.toJSON().Outputs).not.toHaveProperty('PushSecretArn');
    for (const [, fn] of ofType(live.json.Resources, 'AWS::Lambda::Function')) {
      expect(Object.keys(fn.Properties.Environment?.Variables ?? {}).filter((name) => /^(SOCIAL|APNS|FCM|PUSH)_/.test(name))).toEqual([]);
    }
  });
});

describe('the silent push (-c silentPush=true)', () => {
  // With Sign in with Apple and WeChat offered too, so that both secrets exist and each one's readers can be told apart.
  const pushed = synthesizeOnce(
    {
      silentPush: 'true',
      APNS_TEAM_ID: 'TEAM123456',
      APNS_KEY_ID: 'KEY1234567',
      APNS_TOPIC: 'com.example.captions',
      PUSH_MIN_INTERVAL_SECONDS: '1800',
      APPLE_CLIENT_IDS: 'com.example.captions',
      APPLE_TEAM_ID: 'TEAM123456',
      APPLE_KEY_ID: 'KEY7654321',
      WECHAT_APP_IDS: 'wx1111111111111111',
    },
    { bundle: false },
  );
  const channel = pushed.stacks.find((each) => each.stack.node.id === 'LiveChannel')!;
  const fanOut = functionIdByDescription(pushed.resources, 'live channel: fan-out of the table stream (pokes, ended sessions)');
  const secretId = (pattern: RegExp) => {
    const found = ofType(pushed.resources, 'AWS::SecretsManager::Secret').filter(([, secret]) => pattern.test(secret.Properties.Description));
    expect(found).toHaveLength(1);
    return found[0]![0];
  };
  const pushSecret = secretId(/^Silent push/);
  const providerSecret = secretId(/Apple's private key and WeChat/);
  // The secrets a function may read (GetSecretValue), by the logical id of the secret its statement names
  // (in a nested stack the resource is a parameter named after the parent's secret).
  const reads = (id: string, secret: string) =>
    statementsOfFunction(pushed.resources, id).some(
      (statement) => statement.Effect === 'Allow' && asArray(statement.Action).includes('secretsmanager:GetSecretValue') && JSON.stringify(statement.Resource).includes(secret),
    );
  const functions = ofType(pushed.resources, 'AWS::Lambda::Function');

  it('makes the push secret, a secret of its own: its ARN, its read and the push settings go to the fan-out and no other function', () => {
    expect(pushSecret).not.toBe(providerSecret);
    // Its value is the operator's to put: a generated placeholder, never a template literal.
    expect(pushed.resources[pushSecret]!.Properties.GenerateSecretString).toMatchObject({ SecretStringTemplate: '{}' });
    expect(pushed.template.toJSON().Outputs.PushSecretArn.Value).toEqual({ Ref: pushSecret });
    const variables = pushed.resources[fanOut]!.Properties.Environment.Variables;
    expect(variables).toMatchObject({ APNS_TEAM_ID: 'TEAM123456', APNS_KEY_ID: 'KEY1234567', APNS_TOPIC: 'com.example.captions', APNS_URL: 'https://api.push.apple.com', FCM_URL: 'https://fcm.googleapis.com', FCM_TOKEN_URL: 'https://oauth2.googleapis.com/token', PUSH_MIN_INTERVAL_SECONDS: '1800' });
    expect(JSON.stringify(variables.PUSH_SECRET_ARN)).toContain(pushSecret);
    expect(reads(fanOut, pushSecret)).toBe(true);
    const pushReaders = functions.filter(([id]) => reads(id, pushSecret)).map(([, fn]) => fn.Properties.Description);
    expect(pushReaders).toEqual(['live channel: fan-out of the table stream (pokes, ended sessions)']);
    for (const [id, fn] of functions) {
      if (id === fanOut) continue;
      const names = Object.keys(fn.Properties.Environment?.Variables ?? {});
      expect(names.filter((name) => /^(APNS|FCM|PUSH)_/.test(name)), fn.Properties.Description).toEqual([]);
    }
    // The keys are never settings.
    for (const [, fn] of functions) {
      expect(Object.keys(fn.Properties.Environment?.Variables ?? {}).filter((name) => /PRIVATE|SERVICE_ACCOUNT/.test(name))).toEqual([]);
    }
  });

  it('leaves the provider secret to the sign-in functions that read Apple\'s key or WeChat\'s secrets: the fan-out neither reads it nor has its ARN', () => {
    // Routes with `providerSecret` and the job revoking Apple tokens (test/infra/stages.test.ts), exactly as without the push.
    const providerReaders = [
      ...ALL_ROUTES.filter((route) => route.providerSecret).map(routeId),
      ...jobs.filter((job) => job.providerSecret).map((job) => `job ${job.name} (${job.schedule})`),
    ].sort();
    expect(functions.filter(([id]) => reads(id, providerSecret)).map(([, fn]) => fn.Properties.Description as string).sort()).toEqual(providerReaders);
    expect(functions.filter(([, fn]) => fn.Properties.Environment?.Variables?.SOCIAL_SECRET_ARN !== undefined).map(([, fn]) => fn.Properties.Description as string).sort()).toEqual(providerReaders);
    expect(reads(fanOut, providerSecret)).toBe(false);
    expect(pushed.resources[fanOut]!.Properties.Environment.Variables).not.toHaveProperty('SOCIAL_SECRET_ARN');
    // The channel's other functions (the ticket authorizer, the connection's) read neither.
    const others = ofType(channel.json.Resources, 'AWS::Lambda::Function').filter(([id]) => id !== fanOut);
    expect(others).toHaveLength(2);
    for (const [id] of others) expect([reads(id, pushSecret), reads(id, providerSecret)]).toEqual([false, false]);
  });

  it('without Apple or WeChat makes the push secret alone: no provider secret for the push\'s sake', () => {
    const pushOnly = synthesize({ silentPush: 'true', APNS_TEAM_ID: 'TEAM123456', APNS_KEY_ID: 'KEY1234567', APNS_TOPIC: 'com.example.captions' }, { bundle: false });
    const descriptions = ofType(pushOnly.resources, 'AWS::SecretsManager::Secret').map(([, secret]) => secret.Properties.Description as string);
    expect(descriptions.filter((description) => /Apple's private key/.test(description))).toEqual([]);
    expect(descriptions.filter((description) => /^Silent push/.test(description))).toHaveLength(1);
    expect(pushOnly.template.toJSON().Outputs).not.toHaveProperty('ProviderSecretArn');
  });

  it('refuses APNs settings given in part', () => {
    expect(() => synthesize({ silentPush: 'true', APNS_TEAM_ID: 'TEAM123456' }, { bundle: false })).toThrow(/APNS_TEAM_ID.*APNS_KEY_ID.*APNS_TOPIC/);
  });
});
