import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { LAMBDA_NODE_MAJOR } from '../../infra/bundling/options';
import { freePort } from '../../infra/local/dynamodb-local';
import { AUTHORIZER_MEMORY_MB, RUNTIME, memoryMbOf } from '../../infra/constructs/service-function';
import { PROJECT_ROOT } from '../../infra/project-root';
import { builtFunctions } from '../support/built-functions';
import { API_TRACE_SAMPLING } from '../../infra/stack';
import { AUDIT_PROTECTED_ACTIONS } from '../../infra/constructs/grants';
import { SUPPORT_POLICIES } from '../../infra/constructs/support-policies';
import { LIST_INDEX_NAME, LIST_INDEX_SORT_KEY, PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from '../../shared/db/table';
import { AUTHORIZATION_HEADER_PATTERN, GATEWAY_RESPONSES } from '../../shared/http/gateway-responses';
import type { GatewayResponse, GatewayResponseType } from '../../shared/http/gateway-responses';
import { authorizer, jobs, realtimeFunctions, routeId, routes, versionedPaths } from '../../shared/routes';
import type { RouteDefinition, TableAccess } from '../../shared/routes';
import {
  allowedActions,
  asArray,
  deployedMethods,
  functionIdByDescription,
  ofType,
  refOf,
  referencedIds,
  statementsOfFunction,
  synthesize,
} from './synth';
import type { DeployedMethod, Resource, Statement, Synthesized } from './synth';

const ALL_ROUTES: readonly RouteDefinition[] = routes;
const SES_FROM = 'Captions <no-reply@mail.example.com>';
/**
 * The SDK's optional SigV4a signers (multi-region endpoints only): required inside a try/catch or
 * named in an error text, never loaded by our calls. Absent on purpose.
 */
const OPTIONAL_SDK_PACKAGES = /^@aws-sdk\/signature-v4(-crt|a)$/;

let synth: Synthesized;
let resources: Record<string, Resource>;
let methods: DeployedMethod[];
let functionOf: Map<RouteDefinition, string>;
let authorizerFunctionId: string;

// The templates without bundling; the bundles are those `cdk synth` builds of the same app, built
// once per change of their sources and shared with the deployed-bundles suite
// (test/support/built-functions.ts): one esbuild build per function, which on a busy two-core
// machine can take longer than the default hook timeout when this file builds them.
const SYNTH_TIMEOUT_MS = 600_000;
let bundleOf: (fn: Resource) => string;

beforeAll(async () => {
  const built = await builtFunctions();
  bundleOf = (fn) => {
    const directory = built.byDescription[fn.Properties.Description];
    expect(directory, `the bundle of ${fn.Properties.Description}`).toBeDefined();
    return directory!;
  };
  synth = synthesize({ SES_FROM_ADDRESS: SES_FROM }, { bundle: false });
  resources = synth.resources;
  methods = deployedMethods(resources);
  functionOf = new Map(ALL_ROUTES.map((route) => [route, functionIdByDescription(resources, routeId(route))]));
  const [authorizerResource] = ofType(resources, 'AWS::ApiGateway::Authorizer');
  authorizerFunctionId = [...referencedIds(authorizerResource![1].Properties.AuthorizerUri)].find(
    (id) => resources[id]?.Type === 'AWS::Lambda::Function',
  )!;
}, SYNTH_TIMEOUT_MS);

const functionsOfStack = () => ofType(resources, 'AWS::Lambda::Function');
const statementsOf = (functionId: string): Statement[] => statementsOfFunction(resources, functionId);
const environmentOf = (functionId: string): Record<string, unknown> => resources[functionId]!.Properties.Environment.Variables;
const jobFunctionId = (name: string): string => {
  const found = functionsOfStack().filter(([, fn]) => String(fn.Properties.Description).startsWith(`job ${name} `));
  expect(found, name).toHaveLength(1);
  return found[0]![0];
};

describe('routes', () => {
  it('serves every route of the route table at its path and its /api/v1 alias, and nothing else', () => {
    const expected = ALL_ROUTES.flatMap((route) => versionedPaths(route.path).map((path) => `${route.method} ${path}`)).sort();
    const deployed = methods.filter((method) => method.httpMethod !== 'OPTIONS').map((method) => `${method.httpMethod} ${method.path}`).sort();
    expect(deployed).toEqual(expected);
    expect(expected).toContain('POST /api/v1/auth/login');
  });

  it('puts every Bearer route behind the TOKEN authorizer, every /admin route behind AWS_IAM (never CUSTOM or NONE), no /api route behind AWS_IAM, and no public route behind either', () => {
    const [[authorizerId]] = ofType(resources, 'AWS::ApiGateway::Authorizer') as [[string, Resource]];
    for (const route of ALL_ROUTES) {
      for (const path of versionedPaths(route.path)) {
        const method = methods.find((candidate) => candidate.httpMethod === route.method && candidate.path === path);
        expect(method, `${route.method} ${path}`).toBeDefined();
        if (route.auth === 'bearer') {
          expect(method!.authorizationType, `${route.method} ${path}`).toBe('CUSTOM');
          expect(method!.authorizerId, `${route.method} ${path}`).toBe(authorizerId);
        } else if (route.auth === 'iam') {
          expect(path.startsWith('/admin/'), path).toBe(true);
          expect(method!.authorizationType, `${route.method} ${path}`).toBe('AWS_IAM');
          expect(method!.authorizerId, `${route.method} ${path}`).toBeUndefined();
        } else {
          expect(method!.authorizationType, `${route.method} ${path}`).toBe('NONE');
          expect(method!.authorizerId, `${route.method} ${path}`).toBeUndefined();
        }
      }
    }
    expect(ALL_ROUTES.some((route) => route.auth === 'bearer') && ALL_ROUTES.some((route) => route.auth === 'none')).toBe(true);
    // Read from the deployed methods themselves, whatever the route table says.
    const nonPreflight = methods.filter((method) => method.httpMethod !== 'OPTIONS');
    expect(nonPreflight.filter((method) => method.path.startsWith('/admin/') && method.authorizationType !== 'AWS_IAM')).toEqual([]);
    expect(nonPreflight.filter((method) => method.path.startsWith('/api/') && method.authorizationType === 'AWS_IAM')).toEqual([]);
    expect(nonPreflight.filter((method) => method.authorizationType === 'AWS_IAM').length).toBe(ALL_ROUTES.filter((route) => route.auth === 'iam').length);
  });

  it('gives every operation its own function, invoked by both paths of the route', () => {
    for (const route of ALL_ROUTES) {
      const invoked = methods
        .filter((method) => method.httpMethod === route.method && versionedPaths(route.path).includes(method.path))
        .map((method) => method.functionId);
      // Both paths of an /api route; an /admin route has one (no alias).
      expect(invoked, routeId(route)).toEqual(versionedPaths(route.path).map(() => functionOf.get(route)));
      expect(invoked.length, routeId(route)).toBe(route.auth === 'iam' ? 1 : 2);
    }
    const distinct = new Set(functionOf.values());
    expect(distinct.size).toBe(ALL_ROUTES.length);
    expect(distinct.has(authorizerFunctionId)).toBe(false);
    // The route functions, the jobs, the authorizer and the live channel's three; no other function (no custom-resource helpers).
    expect(functionsOfStack()).toHaveLength(ALL_ROUTES.length + jobs.length + 1 + Object.keys(realtimeFunctions).length);
  });

  it('lets API Gateway invoke each route function for its own method on this stage only: one permission per function', () => {
    const [[apiId]] = ofType(resources, 'AWS::ApiGateway::RestApi') as [[string, Resource]];
    const [[stageId, stage]] = ofType(resources, 'AWS::ApiGateway::Stage') as [[string, Resource]];
    for (const route of ALL_ROUTES) {
      const permissions = ofType(resources, 'AWS::Lambda::Permission').filter(([, permission]) => refOf(permission.Properties.FunctionName) === functionOf.get(route));
      expect(permissions, routeId(route)).toHaveLength(1);
      const [, permission] = permissions[0]!;
      expect(permission.Properties.Principal).toBe('apigateway.amazonaws.com');
      expect(permission.Properties.Action).toBe('lambda:InvokeFunction');
      const sourceArn = JSON.stringify(permission.Properties.SourceArn);
      expect(sourceArn, routeId(route)).toContain(`/${route.method}/${route.auth === 'iam' ? 'admin' : 'api'}/*`);
      expect(referencedIds(permission.Properties.SourceArn).has(apiId), routeId(route)).toBe(true);
      // The stage by name (or reference), never any stage.
      expect(referencedIds(permission.Properties.SourceArn).has(stageId) || sourceArn.includes(`:${stage.Properties.StageName}/`) || sourceArn.includes(`/${stage.Properties.StageName}/`), routeId(route)).toBe(true);
    }
  });

  it('answers CORS preflight on the route resources without credentials, and none under /admin (signed clients, not browsers)', () => {
    const preflight = methods.filter((method) => method.httpMethod === 'OPTIONS');
    expect(preflight.filter((method) => method.path.startsWith('/admin'))).toEqual([]);
    for (const route of ALL_ROUTES.filter((candidate) => candidate.auth !== 'iam')) {
      for (const path of versionedPaths(route.path)) {
        const options = preflight.find((method) => method.path === path);
        expect(options, `OPTIONS ${path}`).toBeDefined();
        expect(options!.authorizationType).toBe('NONE');
        expect(options!.functionId).toBeUndefined();
      }
    }
  });
});

describe('functions', () => {
  it('run on the Node.js major that npm run bench:lambda-node measures with', () => {
    expect(RUNTIME.name).toBe(`nodejs${LAMBDA_NODE_MAJOR}.x`);
    const scripts = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['bench:lambda-node']).toContain(`--package node@${LAMBDA_NODE_MAJOR} `);
  });

  it('run on Node.js 22 or newer, arm64, ESM bundles, X-Ray active, JSON logs with a retention', () => {
    for (const [id, fn] of functionsOfStack()) {
      const { Runtime, Architectures, Handler, TracingConfig, LoggingConfig } = fn.Properties;
      expect(Number(/^nodejs(\d+)\.x$/.exec(Runtime)?.[1]), id).toBeGreaterThanOrEqual(22);
      expect(Architectures, id).toEqual(['arm64']);
      expect(Handler, id).toBe('index.handler');
      expect(TracingConfig, id).toEqual({ Mode: 'Active' });
      expect(LoggingConfig.LogFormat, id).toBe('JSON');
      const logGroup = resources[refOf(LoggingConfig.LogGroup)!]!;
      expect(logGroup.Type).toBe('AWS::Logs::LogGroup');
      expect(logGroup.Properties.RetentionInDays, id).toBeGreaterThan(0);
      expect(String(fn.Properties.Environment.Variables.NODE_OPTIONS ?? ''), id).not.toContain('source-maps');
    }
  });

  it('are minified single-file ESM bundles without source maps, with the AWS SDK inside', () => {
    for (const [id, fn] of functionsOfStack()) {
      const assetDir = bundleOf(fn);
      expect(readdirSync(assetDir), id).toEqual(['index.mjs']);
      const bundle = readFileSync(join(assetDir, 'index.mjs'), 'utf8');
      // ESM with `require` defined for bundled CommonJS code.
      expect(bundle, id).toMatch(/^import \{ createRequire as (\w+) \} from 'node:module'; const require = \1\(import\.meta\.url\);/);
      expect(bundle, id).not.toContain('sourceMappingURL');
      // Imports left in the bundle are Node built-ins only: nothing is taken from the runtime.
      // Not after a quote: a message quoting an import (tsyringe's "add 'import \"reflect-metadata\"'", in the passkey bundles) loads nothing.
      const external = [...bundle.matchAll(/(?<!['"`])\b(?:import\s*(?:[\w$*{}\s,]+?from\s*)?|import\(\s*|require\(\s*)["']([^"']+)["']/g)].map((match) => match[1]!);
      expect(external.filter((name) => !name.startsWith('node:') && !/^[a-z_]+$/.test(name) && !OPTIONAL_SDK_PACKAGES.test(name)), id).toEqual([]);
      expect(external, id).toContain('node:crypto');
      expect(/from\s*["']@aws-sdk\//.test(bundle), id).toBe(false);
      // Minified: no indentation (unminified, a bundle has thousands of indented lines; the lines
      // of the common-password list, one password each, are a template literal's, not code).
      // esbuild's closing block of licence texts (`/*! Bundled license information: ...`) is prose, not code.
      const code = bundle.replace(/\n\/\*! Bundled license information:[\s\S]*\*\/\s*$/, '\n');
      expect(code.split('\n').filter((line) => /^\s+\S/.test(line)).length, id).toBeLessThan(20);
    }
  });

  it('produce a bundle that loads and answers on Node', async () => {
    const health = ALL_ROUTES.find((route) => route.path === '/api/health')!;
    const fn = resources[functionOf.get(health)!]!;
    const bundle = join(bundleOf(fn), 'index.mjs');
    expect(existsSync(bundle)).toBe(true);
    process.env.TABLE_NAME = 'bundle-check';
    process.env.LOG_LEVEL = 'silent';
    // Nothing listens there: the health check must say the table cannot be read, not "ok".
    process.env.DYNAMODB_ENDPOINT = `http://127.0.0.1:${await freePort()}`;
    try {
      const { handler } = await import(pathToFileURL(bundle).href);
      const response = await handler({ httpMethod: 'GET', path: '/api/health', headers: {}, requestContext: { requestId: 'r1' } }, {});
      expect(response.statusCode).toBe(503);
      expect(JSON.parse(response.body)).toMatchObject({ code: 503, error: 'SERVICE_UNAVAILABLE', requestId: 'r1' });
    } finally {
      delete process.env.DYNAMODB_ENDPOINT;
    }
  });

  it('give password-hashing functions a full vCPU and keep the others small', () => {
    for (const route of ALL_ROUTES) {
      const { MemorySize, Timeout } = resources[functionOf.get(route)!]!.Properties;
      if (route.hashesPasswords) expect(MemorySize, routeId(route)).toBeGreaterThanOrEqual(1769);
      else expect(MemorySize, routeId(route)).toBeLessThanOrEqual(512);
      // What npm run cost prices each function's duration with.
      expect(MemorySize, routeId(route)).toBe(memoryMbOf(route));
      // Below API Gateway's 29 s integration timeout: the function's own error is the one logged.
      expect(Timeout, routeId(route)).toBeGreaterThanOrEqual(3);
      expect(Timeout, routeId(route)).toBeLessThan(29);
    }
    expect(ALL_ROUTES.some((route) => route.hashesPasswords)).toBe(true);
    expect(resources[authorizerFunctionId]!.Properties.MemorySize).toBe(AUTHORIZER_MEMORY_MB);
  });

  it('receive the service settings, and the secret ARN exactly when their entry reads the secret', () => {
    const settings = ['TABLE_NAME', 'TOKEN_TTL_MS', 'CODE_TTL_SECONDS', 'CODE_RESEND_SECONDS', 'CODE_DAILY_LIMIT', 'AUTHORIZER_CACHE_SECONDS', 'JWT_ISSUER', 'JWT_AUDIENCE', 'CORS_ORIGINS', 'LOG_LEVEL', 'SES_FROM_ADDRESS'];
    const [[secretId]] = ofType(resources, 'AWS::SecretsManager::Secret') as [[string, Resource]];
    const [[tableId]] = ofType(resources, 'AWS::DynamoDB::Table') as [[string, Resource]];
    const needs = new Map<string, boolean>([...ALL_ROUTES.map((route) => [functionOf.get(route)!, route.secret] as const), [authorizerFunctionId, authorizer.secret]]);
    for (const [functionId, readsSecret] of needs) {
      const environment = environmentOf(functionId);
      for (const name of settings) expect(environment, `${functionId} ${name}`).toHaveProperty(name);
      expect(refOf(environment.TABLE_NAME)).toBe(tableId);
      expect(environment.SES_FROM_ADDRESS).toBe(SES_FROM);
      if (readsSecret) expect(environment.JWT_SECRET_ARN, functionId).toEqual({ Ref: secretId });
      else expect(environment, functionId).not.toHaveProperty('JWT_SECRET_ARN');
    }
  });

  it('never hold a secret value in an environment variable', () => {
    const [[secretId]] = ofType(resources, 'AWS::SecretsManager::Secret') as [[string, Resource]];
    expect(JSON.stringify(synth.template.toJSON())).not.toMatch(/resolve:secretsmanager|"SecretString"/);
    for (const [id, fn] of functionsOfStack()) {
      for (const [name, value] of Object.entries<unknown>(fn.Properties.Environment.Variables)) {
        // No variable is named like a secret except the ARN pointer.
        if (name !== 'JWT_SECRET_ARN') expect(name, id).not.toMatch(/SECRET|PASSWORD|PRIVATE|SIGNING|_KEY$/);
        if (typeof value === 'string') {
          // Nothing long and random-looking: settings are numbers, names, addresses and lists.
          expect(value, `${id} ${name}`).not.toMatch(/^[A-Za-z0-9+/=_-]{32,}$/);
        } else if (name === 'REALTIME_URL' || name === 'REALTIME_MANAGEMENT_URL') {
          // The live channel's addresses: built from the WebSocket API's id (in its own stack, or that stack's output), nothing else.
          const referenced = [...referencedIds(value)].filter((ref) => !ref.startsWith('AWS::'));
          expect(referenced.length, `${id} ${name}`).toBe(1);
          expect(resources[referenced[0]!]?.Type === 'AWS::ApiGatewayV2::Api' || referenced[0]!.startsWith('LiveChannel'), `${id} ${name}: ${referenced[0]}`).toBe(true);
        } else {
          // Intrinsics: only the table name and the secret's ARN (Ref of a secret is its ARN).
          expect(value, `${id} ${name}`).toEqual({ Ref: name === 'JWT_SECRET_ARN' ? secretId : expect.any(String) });
          if (name !== 'JWT_SECRET_ARN') expect(resources[refOf(value)!]!.Type).toBe('AWS::DynamoDB::Table');
        }
      }
    }
  });
});

describe('scheduled jobs', () => {
  it('runs every job of the route table on its schedule, with its own timeout', () => {
    expect(jobs.length).toBeGreaterThan(0);
    const rules = ofType(resources, 'AWS::Events::Rule').map(([, rule]) => rule.Properties);
    for (const job of jobs) {
      const functionId = jobFunctionId(job.name);
      expect(resources[functionId]!.Properties.Timeout, job.name).toBe(job.timeoutSeconds);
      const rule = rules.find((candidate) => candidate.ScheduleExpression === job.schedule && referencedIds(candidate.Targets).has(functionId));
      expect(rule, job.name).toBeDefined();
      expect(rule!.State ?? 'ENABLED').toBe('ENABLED');
      const permission = ofType(resources, 'AWS::Lambda::Permission').find(([, candidate]) => refOf(candidate.Properties.FunctionName) === functionId);
      expect(permission?.[1].Properties.Principal, job.name).toBe('events.amazonaws.com');
      // Not reachable over HTTP.
      expect(methods.some((method) => method.functionId === functionId), job.name).toBe(false);
      // Only a job that reads the root secret (revoke-apple-tokens: the sealed Apple tokens) is given it.
      if (job.secret) expect(environmentOf(functionId), job.name).toHaveProperty('JWT_SECRET_ARN');
      else expect(environmentOf(functionId), job.name).not.toHaveProperty('JWT_SECRET_ARN');
    }
  });
});

describe('least privilege', () => {
  const WRITE = /^dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem|ConditionCheckItem|TransactWriteItems)$/;

  it('has no wildcard action in any policy of the stack', () => {
    const documents = [
      ...ofType(resources, 'AWS::IAM::Policy').map(([, policy]) => policy.Properties.PolicyDocument),
      ...ofType(resources, 'AWS::IAM::Role').flatMap(([, role]) => asArray(role.Properties.Policies).map((policy: any) => policy.PolicyDocument)),
    ];
    const actions = documents.flatMap((document) => asArray<Statement>(document.Statement)).flatMap((statement) => asArray(statement.Action));
    expect(actions.length).toBeGreaterThan(0);
    expect(actions.filter((action) => action.includes('*'))).toEqual([]);
  });

  it('grants every function exactly the table access, sender and secret its route table entry declares', () => {
    const [[secretId]] = ofType(resources, 'AWS::SecretsManager::Secret') as [[string, Resource]];
    const [[tableId]] = ofType(resources, 'AWS::DynamoDB::Table') as [[string, Resource]];
    const check = (label: string, functionId: string, needs: { table: string; dynamodb?: TableAccess; sender?: boolean; secret: boolean }) => {
      const statements = statementsOf(functionId);
      const actions = allowedActions(statements);
      const dynamo = actions.filter((action) => action.startsWith('dynamodb:'));
      // Exactly the declared actions on the table, and Query on exactly the declared indexes.
      const onTable = statements.filter(
        (statement) => statement.Effect === 'Allow' && asArray(statement.Action).some((action) => action.startsWith('dynamodb:')) && !JSON.stringify(statement.Resource).includes('/index/'),
      );
      const onIndexes = statements.filter((statement) => JSON.stringify(statement.Resource ?? '').includes('/index/'));
      expect(onTable.flatMap((statement) => asArray(statement.Action)).sort(), label).toEqual((needs.dynamodb?.actions ?? []).map((action) => `dynamodb:${action}`).sort());
      expect(onIndexes.flatMap((statement) => asArray(statement.Action)), label).toEqual(needs.dynamodb?.indexes?.length ? ['dynamodb:Query'] : []);
      for (const index of needs.dynamodb?.indexes ?? []) expect(JSON.stringify(onIndexes[0]!.Resource), label).toContain(`/index/${index}`);
      if (needs.table === 'none') expect(dynamo, label).toEqual([]);
      if (needs.table === 'read-write') expect(dynamo.filter((action) => WRITE.test(action)), label).not.toEqual([]);
      else expect(dynamo.filter((action) => WRITE.test(action)), label).toEqual([]);

      const senders = actions.filter((action) => /^(ses|sns):/.test(action));
      if (needs.sender) expect(senders.sort(), label).toEqual(['ses:SendEmail', 'sns:Publish']);
      else expect(senders, label).toEqual([]);

      const secret = actions.filter((action) => action.startsWith('secretsmanager:'));
      expect(secret, label).toEqual(needs.secret ? ['secretsmanager:GetSecretValue'] : []);

      for (const statement of statements.filter((candidate) => candidate.Effect === 'Allow')) {
        const statementActions = asArray(statement.Action);
        const targets = referencedIds(statement.Resource);
        // Table and secret statements name that table and that secret, not `*`.
        if (statementActions.some((action) => action.startsWith('dynamodb:'))) expect([...targets], label).toEqual([tableId]);
        if (statementActions.some((action) => action.startsWith('secretsmanager:'))) expect([...targets], label).toEqual([secretId]);
        if (statement.Resource === '*') {
          expect(statementActions.every((action) => action.startsWith('xray:') || action === 'sns:Publish'), `${label}: ${statementActions}`).toBe(true);
        }
      }
    };
    for (const route of ALL_ROUTES) check(routeId(route), functionOf.get(route)!, route);
    for (const job of jobs) check(job.name, jobFunctionId(job.name), { table: job.table, dynamodb: job.dynamodb, secret: job.secret === true });
    check('authorizer', authorizerFunctionId, authorizer);
    expect(authorizer.table).toBe('read');
  });

  it('grants the code senders SendEmail, the one SES call the code makes, and never SendRawEmail', () => {
    const adapter = readFileSync(join(PROJECT_ROOT, 'shared/adapters/aws-code-sender.ts'), 'utf8');
    expect(new Set([...adapter.matchAll(/\b(Send\w*Email)Command\b/g)].map((match) => match[1]))).toEqual(new Set(['SendEmail']));
    expect(adapter).not.toMatch(/SendRawEmail/);
    const senders = ALL_ROUTES.filter((route) => route.sender);
    expect(senders.length).toBeGreaterThan(0);
    for (const route of senders) expect(allowedActions(statementsOf(functionOf.get(route)!)), routeId(route)).toContain('ses:SendEmail');
    const everyAction = JSON.stringify([...ofType(resources, 'AWS::IAM::Role'), ...ofType(resources, 'AWS::IAM::Policy')]);
    expect(everyAction).not.toContain('ses:SendRawEmail');
  });

  it('limits e-mail to the configured identity and From address, and SNS publishing to SMS', () => {
    const sender = ALL_ROUTES.find((route) => route.sender)!;
    const statements = statementsOf(functionOf.get(sender)!);
    const email = statements.find((statement) => asArray(statement.Action).includes('ses:SendEmail'))!;
    const arns = JSON.stringify(email.Resource);
    expect(arns).toContain(':identity/no-reply@mail.example.com');
    expect(arns).toContain(':identity/mail.example.com');
    expect(email.Condition).toEqual({ StringEquals: { 'ses:FromAddress': 'no-reply@mail.example.com' } });
    const deny = statements.find((statement) => statement.Effect === 'Deny')!;
    expect(asArray(deny.Action)).toEqual(['sns:Publish']);
    expect(JSON.stringify(deny.Resource)).toContain(':sns:*:*:*');
  });

  it('lets only the functions that query the list index reach it, and the authorizer only get items', () => {
    // The routes that declare the index (test/integration/table-grants.test.ts holds each declaration to what its handler queries).
    const queriesIndex = ALL_ROUTES.filter((route) => route.dynamodb?.indexes?.includes(LIST_INDEX_NAME));
    expect(queriesIndex.length).toBeGreaterThan(0);
    for (const route of ALL_ROUTES) {
      const reaches = JSON.stringify(statementsOf(functionOf.get(route)!).map((statement) => statement.Resource)).includes(`/index/${LIST_INDEX_NAME}`);
      expect(reaches, routeId(route)).toBe(queriesIndex.includes(route));
    }
    expect(allowedActions(statementsOf(authorizerFunctionId)).filter((action) => action.startsWith('dynamodb:'))).toEqual(['dynamodb:GetItem']);
  });
});

describe('authorizer', () => {
  it('is a TOKEN authorizer on the Authorization header with the Bearer pattern and a 300 s cache', () => {
    synth.template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'TOKEN',
      IdentitySource: 'method.request.header.Authorization',
      IdentityValidationExpression: AUTHORIZATION_HEADER_PATTERN,
      AuthorizerResultTtlInSeconds: 300,
    });
    expect(resources[authorizerFunctionId]!.Properties.Handler).toBe('index.handler');
    expect(environmentOf(authorizerFunctionId).AUTHORIZER_CACHE_SECONDS).toBe('300');
  });

  it('may be invoked by API Gateway', () => {
    const permissions = ofType(resources, 'AWS::Lambda::Permission').filter(([, permission]) => refOf(permission.Properties.FunctionName) === authorizerFunctionId);
    expect(permissions).toHaveLength(1);
    expect(permissions[0]![1].Properties.Principal).toBe('apigateway.amazonaws.com');
  });
});

describe('gateway responses', () => {
  const responseOf = (type: string) => ofType(resources, 'AWS::ApiGateway::GatewayResponse').find(([, response]) => response.Properties.ResponseType === type)?.[1];

  it.each(Object.keys(GATEWAY_RESPONSES) as GatewayResponseType[])('%s answers in the contract shape with CORS', (type) => {
    const expected = GATEWAY_RESPONSES[type];
    const response = responseOf(type);
    expect(response, type).toBeDefined();
    const { gatewayStatus, headers } = expected as GatewayResponse;
    // The catch-alls keep API Gateway's own status (502 crash, 403, 415 ...); the others set theirs.
    expect(response!.Properties.StatusCode).toBe(gatewayStatus ? undefined : String(expected.status));
    for (const [name, value] of Object.entries(headers ?? {})) {
      expect(response!.Properties.ResponseParameters[`gatewayresponse.header.${name}`], name).toBe(`'${value}'`);
    }
    const template: string = response!.Properties.ResponseTemplates['application/json'];
    // $context.error.messageString is API Gateway's message, already in quotes.
    const body = JSON.parse(template.replace('$context.error.messageString', '"gateway message"'));
    expect(body).toEqual({ ...expected.body, message: template.includes('$context') ? 'gateway message' : expected.body.message });
    expect(response!.Properties.ResponseParameters).toMatchObject({
      'gatewayresponse.header.Access-Control-Allow-Origin': "'*'",
      'gatewayresponse.header.X-Content-Type-Options': "'nosniff'",
      'gatewayresponse.header.Cache-Control': "'no-store'",
    });
  });

  it('covers the refusals the contract names', () => {
    expect(responseOf('UNAUTHORIZED')!.Properties.StatusCode).toBe('401');
    expect(responseOf('ACCESS_DENIED')!.Properties.StatusCode).toBe('401');
    expect(responseOf('MISSING_AUTHENTICATION_TOKEN')!.Properties.StatusCode).toBe('404');
    expect(responseOf('THROTTLED')!.Properties.StatusCode).toBe('429');
    expect(responseOf('THROTTLED')!.Properties.ResponseParameters['gatewayresponse.header.Retry-After']).toBe("'1'");
    expect(responseOf('INTEGRATION_TIMEOUT')!.Properties.StatusCode).toBe('504');
    expect(responseOf('AUTHORIZER_FAILURE')!.Properties.StatusCode).toBe('503');
    expect(responseOf('AUTHORIZER_FAILURE')!.Properties.ResponseParameters['gatewayresponse.header.Retry-After']).toBe("'2'");
    expect(responseOf('DEFAULT_5XX')!.Properties).not.toHaveProperty('StatusCode');
    expect(responseOf('DEFAULT_4XX')!.Properties).not.toHaveProperty('StatusCode');
    expect(responseOf('DEFAULT_5XX')!.Properties.ResponseTemplates['application/json']).toContain('"code":500');
  });
});

describe('table and secret', () => {
  it('is the one on-demand table with the code key names, PITR, TTL and the list index', () => {
    expect(ofType(resources, 'AWS::DynamoDB::Table')).toHaveLength(1);
    synth.template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: PARTITION_KEY, KeyType: 'HASH' },
        { AttributeName: SORT_KEY, KeyType: 'RANGE' },
      ],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      LocalSecondaryIndexes: [
        Match.objectLike({
          IndexName: LIST_INDEX_NAME,
          KeySchema: [
            { AttributeName: PARTITION_KEY, KeyType: 'HASH' },
            { AttributeName: LIST_INDEX_SORT_KEY, KeyType: 'RANGE' },
          ],
        }),
      ],
    });
  });

  it('is disposable in dev (no deletion protection, deleted with the stack)', () => {
    const [[, table]] = ofType(resources, 'AWS::DynamoDB::Table') as [[string, Resource]];
    expect(table.Properties.DeletionProtectionEnabled).toBe(false);
    expect(table.DeletionPolicy).toBe('Delete');
  });

  it('generates the root secret: long, without punctuation', () => {
    synth.template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ PasswordLength: Match.anyValue(), ExcludePunctuation: true }),
    });
    const [[, secret]] = ofType(resources, 'AWS::SecretsManager::Secret') as [[string, Resource]];
    expect(secret.Properties.GenerateSecretString.PasswordLength).toBeGreaterThanOrEqual(32);
    expect(secret.Properties).not.toHaveProperty('SecretString');
  });
});

describe('throttling, logs, tracing, alarms, outputs', () => {
  const stage = () => ofType(resources, 'AWS::ApiGateway::Stage')[0]![1].Properties;

  it('throttles the stage and tightens the code, login and password endpoints on both paths', () => {
    const settings: any[] = stage().MethodSettings;
    const stageWide = settings.find((setting) => setting.ResourcePath === '/*' && setting.HttpMethod === '*');
    expect(stageWide.ThrottlingRateLimit).toBeGreaterThan(0);
    const strict = ALL_ROUTES.filter((route) => route.throttle === 'strict');
    expect(strict.map((route) => route.path)).toEqual(expect.arrayContaining(['/api/verify-code/send', '/api/verify-code/verify', '/api/auth/login', '/api/auth/password/reset']));
    for (const route of strict) {
      for (const path of versionedPaths(route.path)) {
        const setting = settings.find((candidate) => candidate.ResourcePath === `/${path.replaceAll('/', '~1')}` && candidate.HttpMethod === route.method);
        expect(setting, `${route.method} ${path}`).toBeDefined();
        expect(setting.ThrottlingRateLimit).toBeLessThan(stageWide.ThrottlingRateLimit);
        expect(setting.ThrottlingBurstLimit).toBeLessThan(stageWide.ThrottlingBurstLimit);
      }
    }
  });

  it('traces the stage, logs access as JSON with the request id, and never logs bodies', () => {
    const properties = stage();
    expect(properties.TracingEnabled).toBe(true);
    const format = JSON.parse(properties.AccessLogSetting.Format.replace(/:\$context\.[a-zA-Z.]+/g, ':0'));
    expect(format.requestId).toBe('$context.requestId');
    expect(properties.AccessLogSetting.Format).not.toMatch(/sourceIp|userAgent|\$context\.path\b/);
    for (const setting of properties.MethodSettings) {
      expect(setting.DataTraceEnabled).toBe(false);
      expect(setting.LoggingLevel).toBe('ERROR');
    }
    const logGroup = resources[refOf(properties.AccessLogSetting.DestinationArn)!]!;
    expect(logGroup.Properties.RetentionInDays).toBeGreaterThan(0);
  });

  it('samples traces of this stage only, at the rate the cost model prices (npm run cost)', () => {
    const rules = ofType(resources, 'AWS::XRay::SamplingRule').map(([, rule]) => rule.Properties.SamplingRule);
    expect(rules).toHaveLength(1);
    const [api] = ofType(resources, 'AWS::ApiGateway::RestApi');
    expect(rules[0]).toMatchObject({
      ServiceName: `${api![1].Properties.Name}/${stage().StageName}`,
      ServiceType: 'AWS::ApiGateway::Stage',
      ReservoirSize: API_TRACE_SAMPLING.reservoirPerSecond,
      FixedRate: API_TRACE_SAMPLING.fixedRate,
    });
  });

  it("creates the stage's execution log group itself, with a retention, so that a teardown removes it", () => {
    const [[apiId]] = ofType(resources, 'AWS::ApiGateway::RestApi') as [[string, Resource]];
    const [[stageId, stageResource]] = ofType(resources, 'AWS::ApiGateway::Stage') as [[string, Resource]];
    const execution = ofType(resources, 'AWS::Logs::LogGroup').filter(([, group]) => JSON.stringify(group.Properties.LogGroupName ?? '').includes('API-Gateway-Execution-Logs_'));
    expect(execution, stageId).toHaveLength(1);
    const [groupId, group] = execution[0]!;
    // The name API Gateway writes to: API-Gateway-Execution-Logs_<rest api id>/<stage>.
    expect(group.Properties.LogGroupName).toEqual({ 'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: apiId }, `/${stageResource.Properties.StageName}`]] });
    expect(group.Properties.RetentionInDays).toBeGreaterThan(0);
    expect(group.DeletionPolicy).toBe('Delete');
    // Created before the stage can log anything into it.
    expect(asArray(stageResource.DependsOn)).toContain(groupId);
  });

  it('alarms on the 5xx rate, throttled requests, authorizer failures and every route and job function error', () => {
    const alarms = ofType(resources, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
    const serverErrors = alarms.find((alarm) => JSON.stringify(alarm.Metrics ?? []).includes('5XXError'));
    expect(serverErrors).toBeDefined();

    const filters = ofType(resources, 'AWS::Logs::MetricFilter').map(([, filter]) => filter.Properties);
    const alarmOnFilter = (pattern: RegExp) => {
      const filter = filters.find((candidate) => pattern.test(candidate.FilterPattern));
      expect(filter, String(pattern)).toBeDefined();
      const { MetricName, MetricNamespace } = filter!.MetricTransformations[0];
      return alarms.find((alarm) => alarm.MetricName === MetricName && alarm.Namespace === MetricNamespace);
    };
    expect(alarmOnFilter(/\$\.status\s*=\s*429/)).toBeDefined();
    expect(alarmOnFilter(/AUTHORIZER_FAILURE/)).toBeDefined();
    // The SMS circuit breaker: its log line in the sender's log group is a metric with an alarm.
    const smsFilter = filters.find((filter) => /sms limit reached/.test(filter.FilterPattern))!;
    expect(smsFilter.MetricTransformations[0].MetricName).toBe('SmsLimitReached');
    const sender = ALL_ROUTES.find((route) => route.sender)!;
    const senderLogs = refOf(resources[functionOf.get(sender)!]!.Properties.LoggingConfig.LogGroup);
    expect(refOf(ofType(resources, 'AWS::Logs::MetricFilter').find(([, filter]) => filter.Properties === smsFilter)![1].Properties.LogGroupName)).toBe(senderLogs);
    expect(alarmOnFilter(/sms limit reached/)).toBeDefined();

    for (const [label, functionId] of [...ALL_ROUTES.map((route) => [routeId(route), functionOf.get(route)!]), ...jobs.map((job) => [job.name, jobFunctionId(job.name)])]) {
      const errors = alarms.find(
        (alarm) => alarm.MetricName === 'Errors' && alarm.Dimensions?.some((dimension: any) => refOf(dimension.Value) === functionId),
      );
      expect(errors, label).toBeDefined();
    }
  });

  it('keeps every stack, the parent and each area, clear of the CloudFormation limit of 500 resources', () => {
    // Each route costs about ten resources (function, role, log group, alarm, methods, permission, path)
    // in its area's nested stack (test/infra/areas.test.ts: the guards and the room for more routes).
    expect(synth.stacks.map((template) => template.stack.node.id)).toEqual([synth.stack.node.id, ...synth.stack.areas.map((area) => area.node.id), 'LiveChannel']);
    expect(synth.stacks.length).toBeGreaterThan(1);
    for (const template of synth.stacks) expect(Object.keys(template.json.Resources).length, template.stack.node.id).toBeLessThan(450);
  });

  it('outputs the API URL', () => {
    const outputs = synth.template.toJSON().Outputs;
    expect(outputs.ApiUrl).toBeDefined();
    expect(JSON.stringify(outputs.ApiUrl.Value)).toContain('execute-api');
  });
});

describe('the admin API (issue 37)', () => {
  const iamRoutes = ALL_ROUTES.filter((route) => route.auth === 'iam');

  it('has a managed policy per support group naming exactly its methods and paths on this stage, each an output', () => {
    const [[apiId]] = ofType(resources, 'AWS::ApiGateway::RestApi') as [[string, Resource]];
    const policies = ofType(resources, 'AWS::IAM::ManagedPolicy');
    expect(policies).toHaveLength(Object.keys(SUPPORT_POLICIES).length);
    const outputs = synth.stacks[0]!.json.Outputs as Record<string, { Value: unknown }>;
    for (const [group, { id, description }] of Object.entries(SUPPORT_POLICIES)) {
      const found = policies.filter(([, policy]) => policy.Properties.Description === description);
      expect(found, group).toHaveLength(1);
      const [policyId, policy] = found[0]!;
      const statements = asArray<Statement>(policy.Properties.PolicyDocument.Statement);
      expect(statements.map((statement) => [statement.Effect, asArray(statement.Action)]), group).toEqual([['Allow', ['execute-api:Invoke']]]);
      const arns = asArray(statements[0]!.Resource).map((arn) => JSON.stringify(arn));
      const expected = iamRoutes.filter((route) => route.support === group).map((route) => `/dev/${route.method}${route.path.replace(/\{\w+\}/g, '*')}"`);
      expect(expected.length, group).toBeGreaterThan(0);
      expect(arns.map((arn) => expected.find((tail) => arn.endsWith(`${tail}]]}`)) ?? arn).sort(), group).toEqual([...expected].sort());
      for (const arn of asArray(statements[0]!.Resource)) expect(referencedIds(arn).has(apiId), group).toBe(true);
      expect(refOf(outputs[`${id}PolicyArn`]?.Value), group).toBe(policyId);
    }
  });

  it('denies every admin function updating or deleting an audit entry, and gives only them the audit retention', () => {
    for (const route of ALL_ROUTES) {
      const functionId = functionOf.get(route)!;
      const deny = statementsOf(functionId).filter((statement) => statement.Effect === 'Deny' && asArray(statement.Action).some((action) => action.startsWith('dynamodb:')));
      if (route.auth === 'iam') {
        expect(deny, routeId(route)).toHaveLength(1);
        expect(asArray(deny[0]!.Action).sort(), routeId(route)).toEqual([...AUDIT_PROTECTED_ACTIONS].sort());
        expect(deny[0]!.Condition, routeId(route)).toEqual({ 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['AUDIT#*'] } });
        expect(environmentOf(functionId).AUDIT_RETENTION_DAYS, routeId(route)).toBe('400');
      } else {
        expect(deny, routeId(route)).toEqual([]);
        expect(environmentOf(functionId).AUDIT_RETENTION_DAYS, routeId(route)).toBeUndefined();
      }
    }
  });

  it('throttles the /admin methods by their own limit', () => {
    const [[, stage]] = ofType(resources, 'AWS::ApiGateway::Stage') as [[string, Resource]];
    const settings = asArray<any>(stage.Properties.MethodSettings);
    for (const route of iamRoutes) {
      const setting = settings.find((candidate) => candidate.HttpMethod === route.method && candidate.ResourcePath === `/${route.path.replaceAll('/', '~1')}`);
      expect(setting, routeId(route)).toMatchObject({ ThrottlingRateLimit: 2, ThrottlingBurstLimit: 5 });
    }
  });
});
