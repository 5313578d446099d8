import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { awsCodeSender } from '../../shared/adapters/aws-code-sender';
import { RATE_EXCEEDED_LABEL, WAF_RETRY_AFTER_SECONDS } from '../../infra/constructs/code-rate-limit-waf';
import { PROJECT_ROOT } from '../../infra/project-root';
import { parseConfig } from '../../shared/config';
import { GATEWAY_RESPONSES } from '../../shared/http/gateway-responses';
import { jobs, routeId, routes } from '../../shared/routes';
import type { RouteDefinition } from '../../shared/routes';
import { importGraph } from '../support/source-imports';
import { allowedActions, asArray, functionIdByDescription, ofType, statementsOfFunction, synthesizeOnce } from './synth';
import type { Resource, Synthesized } from './synth';

// Settings only: no bundling (the bundles are checked in stack.test.ts).
const synth = (context: Record<string, unknown>) => synthesizeOnce(context, { bundle: false });
const ALL_ROUTES: readonly RouteDefinition[] = routes;
const PROD = { stage: 'prod', SES_FROM_ADDRESS: 'no-reply@example.com' };

const only = (synthesized: Synthesized, type: string): Resource => {
  const found = ofType(synthesized.resources, type);
  expect(found, type).toHaveLength(1);
  return found[0]![1];
};
const environments = (synthesized: Synthesized) => ofType(synthesized.resources, 'AWS::Lambda::Function').map(([, fn]) => fn.Properties.Environment.Variables);
const stageSettings = (synthesized: Synthesized) => only(synthesized, 'AWS::ApiGateway::Stage').Properties;

describe('prod stage', () => {
  const prod = synth(PROD);
  const dev = synth({});

  it('keeps the table and the secret when the stack goes, with deletion protection', () => {
    const table = only(prod, 'AWS::DynamoDB::Table');
    expect(table.Properties.DeletionProtectionEnabled).toBe(true);
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.UpdateReplacePolicy).toBe('Retain');
    expect(only(prod, 'AWS::SecretsManager::Secret').DeletionPolicy).toBe('Retain');
    expect(prod.stack.terminationProtection).toBe(true);
    expect(dev.stack.terminationProtection).toBe(false);
  });

  it('is named by stage, keeps logs longer than dev and logs at info', () => {
    expect(prod.stack.stackName).toBe('CaptioningService-prod');
    expect(stageSettings(prod).StageName).toBe('prod');
    const retention = (synthesized: Synthesized) => Math.min(...ofType(synthesized.resources, 'AWS::Logs::LogGroup').map(([, group]) => group.Properties.RetentionInDays));
    expect(retention(prod)).toBeGreaterThan(retention(dev));
    expect(new Set(environments(prod).map((environment) => environment.LOG_LEVEL))).toEqual(new Set(['info']));
  });

  it("sets every function's Lambda application log level from LOG_LEVEL, so debug lines reach CloudWatch in dev", () => {
    const levels = (synthesized: Synthesized) =>
      new Set(ofType(synthesized.resources, 'AWS::Lambda::Function').map(([, fn]) => `${fn.Properties.LoggingConfig.ApplicationLogLevel}/${fn.Properties.LoggingConfig.SystemLogLevel}/${fn.Properties.Environment.Variables.LOG_LEVEL}`));
    expect(levels(dev)).toEqual(new Set(['DEBUG/INFO/debug']));
    expect(levels(prod)).toEqual(new Set(['INFO/INFO/info']));
    expect(levels(synth({ LOG_LEVEL: 'warn' }))).toEqual(new Set(['WARN/INFO/warn']));
  });

  it('allows more traffic than dev', () => {
    const stageWide = (synthesized: Synthesized) => stageSettings(synthesized).MethodSettings.find((setting: any) => setting.ResourcePath === '/*');
    expect(stageWide(prod).ThrottlingRateLimit).toBeGreaterThan(stageWide(dev).ThrottlingRateLimit);
  });

  it('refuses to synthesize without an SES sender address', () => {
    expect(() => synth({ stage: 'prod' })).toThrow(/SES_FROM_ADDRESS/);
  });
});

describe('settings from context', () => {
  it('sets the authorizer cache and passes it to the functions', () => {
    const synthesized = synth({ AUTHORIZER_CACHE_SECONDS: '60' });
    expect(only(synthesized, 'AWS::ApiGateway::Authorizer').Properties.AuthorizerResultTtlInSeconds).toBe(60);
    expect(new Set(environments(synthesized).map((environment) => environment.AUTHORIZER_CACHE_SECONDS))).toEqual(new Set(['60']));
    expect(only(synth({ AUTHORIZER_CACHE_SECONDS: 0 }), 'AWS::ApiGateway::Authorizer').Properties.AuthorizerResultTtlInSeconds).toBe(0);
  });

  it('passes the contract settings to every function, normalised', () => {
    const synthesized = synth({ CODE_DAILY_LIMIT: '5', TOKEN_TTL_MS: 3_600_000, SMS_ALLOWED_COUNTRY_CODES: '+86, 1' });
    for (const environment of environments(synthesized)) {
      expect(environment).toMatchObject({ CODE_DAILY_LIMIT: '5', TOKEN_TTL_MS: '3600000', SMS_ALLOWED_COUNTRY_CODES: '86,1' });
    }
  });

  it('rejects bad values at synth time, with the setting named', () => {
    expect(() => synth({ CODE_DAILY_LIMIT: 'ten' })).toThrow(/CODE_DAILY_LIMIT/);
    expect(() => synth({ AUTHORIZER_CACHE_SECONDS: '7200' })).toThrow(/AUTHORIZER_CACHE_SECONDS/);
    expect(() => synth({ stage: 'staging' })).toThrow(/stage/);
    expect(() => synth({ SES_FROM_ADDRESS: 'nobody' })).toThrow(/SES_FROM_ADDRESS/);
    // With a trailing slash it would never equal a browser's Origin: every call from the app would fail CORS.
    expect(() => synth({ CORS_ORIGINS: 'https://app.example.com/' })).toThrow(/CORS_ORIGINS/);
    expect(() => synth({ waf: 'yes' })).toThrow(/waf/);
    expect(() => synth({ waf: 'true', wafCodeRequestsPer5Minutes: 5 })).toThrow(/wafCodeRequestsPer5Minutes/);
  });

  it('overrides the throttles', () => {
    const synthesized = synth({ throttleRateLimit: 7, throttleBurstLimit: 9, strictThrottleRateLimit: 1, strictThrottleBurstLimit: 2 });
    const settings: any[] = stageSettings(synthesized).MethodSettings;
    expect(settings.find((setting) => setting.ResourcePath === '/*')).toMatchObject({ ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 });
    expect(settings.find((setting) => setting.ResourcePath === '/~1api~1auth~1login')).toMatchObject({ ThrottlingRateLimit: 1, ThrottlingBurstLimit: 2 });
  });

  it('without an SES address in dev, grants no e-mail sending and still allows SMS', () => {
    const synthesized = synth({});
    const sender = ALL_ROUTES.find((route) => route.sender)!;
    const actions = allowedActions(statementsOfFunction(synthesized.resources, functionIdByDescription(synthesized.resources, routeId(sender))));
    expect(actions.filter((action) => action.startsWith('ses:'))).toEqual([]);
    expect(actions).toContain('sns:Publish');
    for (const environment of environments(synthesized)) expect(environment).not.toHaveProperty('SES_FROM_ADDRESS');
  });

  it('sends e-mail from exactly the address the IAM condition allows, whatever the case it was given in', async () => {
    const synthesized = synth({ SES_FROM_ADDRESS: 'Captions <No-Reply@Mail.Example.com>' });
    const senderId = functionIdByDescription(synthesized.resources, routeId(ALL_ROUTES.find((route) => route.sender)!));
    const email = statementsOfFunction(synthesized.resources, senderId).find((statement) => asArray(statement.Action).includes('ses:SendEmail'))!;
    const allowed: string = email.Condition.StringEquals['ses:FromAddress'];
    // The function's own settings, as Lambda gives them, through the real SES adapter.
    const environment = synthesized.resources[senderId]!.Properties.Environment.Variables as Record<string, string>;
    const ses = mockClient(SESClient);
    try {
      ses.on(SendEmailCommand).resolves({ MessageId: 'm1' });
      await awsCodeSender(parseConfig(environment)).send({ channel: 'email', target: 'a@example.com', code: '123456', locale: 'en', subject: 's', text: 't' });
      const source = ses.commandCalls(SendEmailCommand)[0]!.args[0].input.Source!;
      // SES compares ses:FromAddress case-sensitively with the address in Source.
      expect(/<([^>]+)>$/.exec(source)?.[1] ?? source).toBe(allowed);
      expect(source).toBe('Captions <no-reply@mail.example.com>');
    } finally {
      ses.restore();
    }
  });

  it('notifies an existing SNS topic from every alarm when one is given', () => {
    const topic = 'arn:aws:sns:eu-west-1:123456789012:on-call';
    const alarms = ofType(synth({ alarmTopicArn: topic }).resources, 'AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThan(3);
    for (const [id, alarm] of alarms) expect(alarm.Properties.AlarmActions, id).toEqual([topic]);
  });
});

describe('CORS origins from context', () => {
  const gatewayHeaders = (synthesized: Synthesized) =>
    ofType(synthesized.resources, 'AWS::ApiGateway::GatewayResponse').map(([, response]) => response.Properties.ResponseParameters);

  it('names a single origin literally on gateway responses and preflight', () => {
    const synthesized = synth({ CORS_ORIGINS: 'https://app.example.com' });
    for (const headers of gatewayHeaders(synthesized)) {
      expect(headers['gatewayresponse.header.Access-Control-Allow-Origin']).toBe("'https://app.example.com'");
      expect(headers['gatewayresponse.header.Vary']).toBe("'Origin'");
    }
    const preflight = ofType(synthesized.resources, 'AWS::ApiGateway::Method').find(([, method]) => method.Properties.HttpMethod === 'OPTIONS')![1];
    expect(JSON.stringify(preflight.Properties.Integration)).toContain('https://app.example.com');
    for (const environment of environments(synthesized)) expect(environment.CORS_ORIGINS).toBe('https://app.example.com');
  });

  it('echoes the caller origin on gateway responses when several are allowed, and lists them for preflight', () => {
    const synthesized = synth({ CORS_ORIGINS: 'https://a.example.com,https://b.example.com' });
    for (const headers of gatewayHeaders(synthesized)) {
      expect(headers['gatewayresponse.header.Access-Control-Allow-Origin']).toBe('method.request.header.Origin');
    }
    const preflight = ofType(synthesized.resources, 'AWS::ApiGateway::Method').find(([, method]) => method.Properties.HttpMethod === 'OPTIONS')![1];
    const integration = JSON.stringify(preflight.Properties.Integration);
    expect(integration).toContain('https://a.example.com');
    expect(integration).toContain('https://b.example.com');
  });
});

describe('WAF (on by default, -c waf=false turns it off)', () => {
  const synthesized = synth({});

  it('is on in every stage by default, and absent only when turned off', () => {
    expect(ofType(synth(PROD).resources, 'AWS::WAFv2::WebACL')).toHaveLength(1);
    expect(ofType(synthesized.resources, 'AWS::WAFv2::WebACL')).toHaveLength(1);
    expect(ofType(synth({ waf: 'false' }).resources, 'AWS::WAFv2::WebACL')).toEqual([]);
  });

  it('limits each IP on the code endpoints and answers 429 in the contract shape', () => {
    const acl = only(synthesized, 'AWS::WAFv2::WebACL').Properties;
    expect(acl.Scope).toBe('REGIONAL');
    expect(acl.DefaultAction).toEqual({ Allow: {} });
    const [rule, blocked] = acl.Rules;
    const rate = rule.Statement.RateBasedStatement;
    expect(rate).toMatchObject({ AggregateKeyType: 'IP', Limit: 100, EvaluationWindowSec: 300 });
    // The rate rule labels; the rule after it answers for any origin (CORS_ORIGINS=*).
    expect(rule.Action).toEqual({ Count: {} });
    expect(rule.RuleLabels).toEqual([{ Name: RATE_EXCEEDED_LABEL }]);
    expect(blocked.Statement).toEqual({ LabelMatchStatement: { Scope: 'LABEL', Key: RATE_EXCEEDED_LABEL } });
    expect(blocked.Action.Block.CustomResponse).toMatchObject({ ResponseCode: 429, CustomResponseBodyKey: 'THROTTLED' });
    expect(acl.Rules).toHaveLength(2);
    expect(JSON.parse(acl.CustomResponseBodies.THROTTLED.Content)).toEqual(GATEWAY_RESPONSES.THROTTLED.body);

    const pattern = new RegExp(rate.ScopeDownStatement.RegexMatchStatement.RegexString);
    for (const path of ['/api/verify-code/send', '/api/v1/verify-code/verify', '/dev/api/verify-code/send', '/prod/api/v1/verify-code/send']) {
      expect(pattern.test(path), path).toBe(true);
    }
    for (const path of ['/api/auth/login', '/dev/api/users/me', '/api/verify-codes', '/x/y/api/verify-code/send']) {
      expect(pattern.test(path), path).toBe(false);
    }
  });

  const blockHeaders = (rule: any): Record<string, string> =>
    Object.fromEntries(rule.Action.Block.CustomResponse.ResponseHeaders.map((header: { Name: string; Value: string }) => [header.Name, header.Value]));

  it('answers its 429 with Retry-After and CORS, readable by a browser app', () => {
    const [, blocked] = only(synthesized, 'AWS::WAFv2::WebACL').Properties.Rules;
    expect(blockHeaders(blocked)).toMatchObject({
      'Retry-After': String(WAF_RETRY_AFTER_SECONDS),
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Expose-Headers': expect.stringContaining('Retry-After'),
      'Cache-Control': 'no-store',
    });
    // An IP stays blocked until its count over the last 5 minutes falls below the limit.
    expect(WAF_RETRY_AFTER_SECONDS).toBe(300);
  });

  it('names each allowed origin in its own blocking rule when CORS_ORIGINS lists several, and no origin for others', () => {
    const rules = only(synth({ CORS_ORIGINS: 'https://a.example.com,https://b.example.com' }), 'AWS::WAFv2::WebACL').Properties.Rules;
    expect(rules.map((rule: any) => rule.Priority)).toEqual([0, 1, 2, 3]);
    for (const [index, origin] of ['https://a.example.com', 'https://b.example.com'].entries()) {
      const rule = rules[index + 1];
      const [label, header] = rule.Statement.AndStatement.Statements;
      expect(label).toEqual({ LabelMatchStatement: { Scope: 'LABEL', Key: RATE_EXCEEDED_LABEL } });
      expect(header.ByteMatchStatement).toMatchObject({ FieldToMatch: { SingleHeader: { Name: 'origin' } }, PositionalConstraint: 'EXACTLY', SearchString: origin });
      expect(blockHeaders(rule)).toMatchObject({ 'Access-Control-Allow-Origin': origin, Vary: 'Origin', 'Retry-After': String(WAF_RETRY_AFTER_SECONDS) });
    }
    const fallback = blockHeaders(rules[3]);
    expect(fallback).not.toHaveProperty('Access-Control-Allow-Origin');
    expect(fallback).toMatchObject({ Vary: 'Origin', 'Retry-After': String(WAF_RETRY_AFTER_SECONDS) });
  });

  it('is associated with the API stage', () => {
    const association = only(synthesized, 'AWS::WAFv2::WebACLAssociation').Properties;
    expect(JSON.stringify(association.ResourceArn)).toContain('/restapis/');
    expect(JSON.stringify(association.ResourceArn)).toContain('/stages/');
    expect(synthesized.template.toJSON().Outputs.WebAclArn).toBeDefined();
  });
});

describe('Sign in with Apple, Google and WeChat from context (docs/social-sign-in.md)', () => {
  const PROVIDERS = {
    APPLE_CLIENT_IDS: 'com.example.captions, com.example.captions.web',
    APPLE_TEAM_ID: 'TEAM123456',
    APPLE_KEY_ID: 'KEY1234567',
    GOOGLE_CLIENT_IDS: 'ios.apps.googleusercontent.com',
    WECHAT_APP_IDS: 'wx1111111111111111',
  };
  const configured = synth(PROVIDERS);
  const secretsOf = (synthesized: Synthesized) => ofType(synthesized.resources, 'AWS::SecretsManager::Secret');
  const providerSecretId = (synthesized: Synthesized) => secretsOf(synthesized).find(([, secret]) => /Apple/.test(secret.Properties.Description))?.[0];
  const functionOf = (synthesized: Synthesized, route: RouteDefinition) => functionIdByDescription(synthesized.resources, routeId(route));
  const environmentOf = (synthesized: Synthesized, route: RouteDefinition): Record<string, unknown> =>
    synthesized.resources[functionOf(synthesized, route)]!.Properties.Environment.Variables;
  const secretTargets = (synthesized: Synthesized, route: RouteDefinition) =>
    statementsOfFunction(synthesized.resources, functionOf(synthesized, route))
      .filter((statement) => statement.Effect === 'Allow' && asArray(statement.Action).includes('secretsmanager:GetSecretValue'))
      .map((statement) => JSON.stringify(statement.Resource));

  it("gives the providers' settings, normalised, to the functions of routes with `providers` and to no other", () => {
    // Which routes carry `providers` is held to their handlers' imports by test/unit/bundles.test.ts.
    const withProviders = ALL_ROUTES.filter((route) => route.providers);
    expect(withProviders.length).toBeGreaterThan(0);
    for (const route of withProviders) {
      expect(environmentOf(configured, route), routeId(route)).toMatchObject({
        APPLE_CLIENT_IDS: 'com.example.captions,com.example.captions.web',
        APPLE_TEAM_ID: 'TEAM123456',
        APPLE_KEY_ID: 'KEY1234567',
        GOOGLE_CLIENT_IDS: 'ios.apps.googleusercontent.com',
        WECHAT_APP_IDS: 'wx1111111111111111',
        APPLE_API_URL: 'https://appleid.apple.com',
        GOOGLE_JWKS_URL: 'https://www.googleapis.com/oauth2/v3/certs',
        WECHAT_API_URL: 'https://api.weixin.qq.com',
      });
    }
    // The job that revokes Apple tokens of deleted accounts (issue 38) talks to Apple too.
    const jobsWithProviders = jobs.filter((job) => job.providers).map((job) => functionIdByDescription(configured.resources, `job ${job.name} (${job.schedule})`));
    for (const [id, fn] of ofType(configured.resources, 'AWS::Lambda::Function')) {
      const variables = Object.keys(fn.Properties.Environment.Variables);
      if (withProviders.some((route) => functionOf(configured, route) === id) || jobsWithProviders.includes(id)) continue;
      expect(variables.filter((name) => /^(APPLE|GOOGLE|WECHAT|SOCIAL|PROVIDER)_/.test(name)), id).toEqual([]);
    }
  });

  it('makes the provider secret for Apple and WeChat, grants it and passes its ARN to their sign-ins only, never its value', () => {
    const secretId = providerSecretId(configured)!;
    expect(secretId).toBeDefined();
    // Its value is the operator's to put: a generated placeholder, never a template literal.
    expect(configured.resources[secretId]!.Properties.GenerateSecretString).toMatchObject({ SecretStringTemplate: '{}' });
    expect(JSON.stringify(configured.template.toJSON())).not.toMatch(/"SecretString"|resolve:secretsmanager/);
    for (const route of ALL_ROUTES) {
      const readsIt = secretTargets(configured, route).some((resource) => resource.includes(secretId));
      expect(readsIt, routeId(route)).toBe(route.providerSecret);
      const environment = environmentOf(configured, route);
      if (route.providerSecret) expect(environment.SOCIAL_SECRET_ARN, routeId(route)).toEqual({ Ref: secretId });
      else expect(environment, routeId(route)).not.toHaveProperty('SOCIAL_SECRET_ARN');
    }
    // `providerSecret` is where the handler's imports reach providers' code that reads the secret
    // (Apple's key signs its client secret, WeChat's app secret): Google's sign-in and Apple's
    // notifications need none. A flag missing, or set where nothing reads it, fails here.
    const readingTheSecret = ALL_ROUTES.filter((route) =>
      [...importGraph(route.entry)].some((file) => file.startsWith('shared/identity/social/') && readFileSync(join(PROJECT_ROOT, file), 'utf8').includes('providerSecrets()')),
    );
    expect(readingTheSecret.length).toBeGreaterThan(0);
    expect(ALL_ROUTES.filter((route) => route.providerSecret).map(routeId).sort()).toEqual(readingTheSecret.map(routeId).sort());
    // The job revoke-apple-tokens signs its calls to Apple with Apple's key: it reads the secret, with Apple's settings.
    const [revoking, ...otherJobs] = jobs.filter((job) => job.providerSecret);
    expect(revoking?.name).toBe('revoke-apple-tokens');
    expect(otherJobs).toEqual([]);
    const jobId = functionIdByDescription(configured.resources, `job ${revoking!.name} (${revoking!.schedule})`);
    const jobEnvironment = configured.resources[jobId]!.Properties.Environment.Variables;
    expect(jobEnvironment).toMatchObject({ SOCIAL_SECRET_ARN: { Ref: secretId }, APPLE_CLIENT_IDS: 'com.example.captions,com.example.captions.web', APPLE_API_URL: 'https://appleid.apple.com' });
    expect(jobEnvironment).toHaveProperty('JWT_SECRET_ARN');
    const jobSecrets = statementsOfFunction(configured.resources, jobId).filter((statement) => statement.Effect === 'Allow' && asArray(statement.Action).includes('secretsmanager:GetSecretValue'));
    expect(jobSecrets.some((statement) => JSON.stringify(statement.Resource).includes(secretId))).toBe(true);
    // Where the operator puts the keys: the ARN only.
    expect(configured.template.toJSON().Outputs.ProviderSecretArn.Value).toEqual({ Ref: secretId });
    // No variable holds Apple's key or a WeChat secret.
    for (const environment of environments(configured)) {
      expect(Object.keys(environment).filter((name) => /PRIVATE|APP_SECRETS/.test(name))).toEqual([]);
    }
  });

  it('makes no provider secret when neither Apple nor WeChat is offered; Google alone needs none', () => {
    for (const synthesized of [synth({}), synth({ GOOGLE_CLIENT_IDS: 'web.apps.googleusercontent.com' })]) {
      expect(providerSecretId(synthesized)).toBeUndefined();
      expect(secretsOf(synthesized)).toHaveLength(1);
      for (const environment of environments(synthesized)) expect(environment).not.toHaveProperty('SOCIAL_SECRET_ARN');
      expect(synthesized.template.toJSON().Outputs).not.toHaveProperty('ProviderSecretArn');
    }
    // Unset client ids: the provider is not offered, and no empty variable is passed.
    const google = ALL_ROUTES.find((route) => routeId(route) === 'POST /api/auth/google')!;
    expect(environmentOf(synth({}), google)).not.toHaveProperty('GOOGLE_CLIENT_IDS');
  });

  it('refuses Apple without its team and key ids, and a bad provider setting, at synth time', () => {
    expect(() => synth({ APPLE_CLIENT_IDS: 'com.example.captions' })).toThrow(/APPLE_TEAM_ID/);
    expect(() => synth({ ...PROVIDERS, APPLE_API_URL: 'not a url' })).toThrow(/APPLE_API_URL/);
    expect(() => synth({ ...PROVIDERS, PROVIDER_KEYS_COOLDOWN_SECONDS: 'soon' })).toThrow(/PROVIDER_KEYS_COOLDOWN_SECONDS/);
  });
});

describe('speech sessions from context (docs/speech.md)', () => {
  const configured = synth({ SPEECH_PROVIDERS: 'azure,aws,tencent', TENCENT_ASR_APP_ID: '1250000000', AZURE_SPEECH_REGION: 'westeurope' });
  const functionOf = (synthesized: Synthesized, route: RouteDefinition) => functionIdByDescription(synthesized.resources, routeId(route));
  const speechSecretId = (synthesized: Synthesized) => ofType(synthesized.resources, 'AWS::SecretsManager::Secret').find(([, secret]) => /speech/i.test(secret.Properties.Description))?.[0];

  it('makes the speech secret, grants it and Transcribe’s streams to the speech functions only, and passes its ARN and the providers’ addresses to them only', () => {
    const secretId = speechSecretId(configured)!;
    expect(secretId).toBeDefined();
    expect(configured.resources[secretId]!.Properties.GenerateSecretString).toMatchObject({ SecretStringTemplate: '{}' });
    expect(configured.template.toJSON().Outputs.SpeechSecretArn.Value).toEqual({ Ref: secretId });
    // Named on purpose: the start and the renewal mint credentials; the end, the quota and the views
    // share their module (shared/speech/session-service.ts) and mint nothing, so no import tells them apart.
    expect(ALL_ROUTES.filter((route) => route.speech).map(routeId).sort(), 'a route given the speech secret: name it here once its handler mints credentials (shared/routes.ts `speech`)').toEqual(['POST /api/speech/sessions', 'POST /api/speech/sessions/{sessionId}/renew']);
    for (const route of ALL_ROUTES) {
      const statements = statementsOfFunction(configured.resources, functionOf(configured, route)).filter((statement) => statement.Effect === 'Allow');
      const readsSecret = statements.some((statement) => asArray(statement.Action).includes('secretsmanager:GetSecretValue') && JSON.stringify(statement.Resource).includes(secretId));
      const streams = allowedActions(statements).includes('transcribe:StartStreamTranscriptionWebSocket');
      expect(readsSecret, routeId(route)).toBe(route.speech);
      expect(streams, routeId(route)).toBe(route.speech);
      const environment = configured.resources[functionOf(configured, route)]!.Properties.Environment.Variables as Record<string, unknown>;
      if (route.speech) {
        expect(environment, routeId(route)).toMatchObject({ SPEECH_SECRET_ARN: { Ref: secretId }, AZURE_SPEECH_REGION: 'westeurope', TENCENT_ASR_APP_ID: '1250000000' });
        expect(environment, routeId(route)).not.toHaveProperty('JWT_SECRET_ARN');
      } else {
        expect(Object.keys(environment).filter((name) => /^(SPEECH_SECRET|AZURE|DEEPGRAM|TENCENT|AWS_TRANSCRIBE)/.test(name)), routeId(route)).toEqual([]);
      }
      // The limits reach every function (the summary's quota, the admin view).
      expect(environment, routeId(route)).toMatchObject({ SPEECH_PROVIDERS: 'azure,aws,tencent', SPEECH_DAILY_SECONDS: '7200' });
    }
    for (const environment of environments(configured)) expect(Object.keys(environment).filter((name) => /KEY$|SECRET_ID/.test(name))).toEqual([]);
  });

  it('makes no speech secret and grants no stream when no provider is offered; Transcribe alone needs no secret', () => {
    const none = synth({});
    expect(speechSecretId(none)).toBeUndefined();
    const transcribeOnly = synth({ SPEECH_PROVIDERS: 'aws' });
    expect(speechSecretId(transcribeOnly)).toBeUndefined();
    const start = ALL_ROUTES.find((route) => routeId(route) === 'POST /api/speech/sessions')!;
    expect(allowedActions(statementsOfFunction(none.resources, functionOf(none, start)))).not.toContain('transcribe:StartStreamTranscriptionWebSocket');
    expect(allowedActions(statementsOfFunction(transcribeOnly.resources, functionOf(transcribeOnly, start)))).toContain('transcribe:StartStreamTranscriptionWebSocket');
    expect(() => synth({ SPEECH_PROVIDERS: 'tencent' })).toThrow(/TENCENT_ASR_APP_ID/);
    expect(() => synth({ SPEECH_PROVIDERS: 'whisper' })).toThrow(/SPEECH_PROVIDERS/);
  });
});
