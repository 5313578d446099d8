import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import type { CfnResource, NestedStack } from 'aws-cdk-lib';
import { addServiceStack } from '../stack';
import type { ServiceStack } from '../stack';
import type { ServiceFunction } from '../constructs/service-function';
import { constructIdOf } from '../constructs/service-function';
import { routeId } from '../../shared/routes';
import type { JobDefinition, RouteDefinition } from '../../shared/routes';
import { jobs as jobTable } from '../../shared/routes';

/**
 * The functions as `cdk synth` makes them, for `npm run start:deployed` (infra/local/start.ts) and
 * its tests: the app of infra/app.ts (`addServiceStack`, cdk-nag included) synthesized in this
 * process, each function's bundle taken from the cloud assembly (the asset its template's `Code`
 * names: the esbuild output with its defines, conditions and aliases, exactly what `cdk deploy`
 * uploads) and its handler, timeout, memory and environment read from its template, nested
 * stacks' parameters and the parent's references resolved to the local stand-ins. Nothing here
 * lists routes or functions: they are the stack's (`deployedRoutes`, the authorizer, the jobs).
 */

/** Where a function's template references point locally. */
export interface LocalResources {
  region: string;
  account: string;
  /** The physical name of the table (CloudFormation generates it on AWS). */
  tableName: string;
}

/** What the Secrets Manager stand-in holds: the ARN of the root secret, of the provider secret, of the speech secret and of the push secret. */
export interface DeployedSecrets {
  root: string;
  provider?: string;
  speech?: string;
  push?: string;
}

export interface DeployedFunction {
  /** `routeId` of its route, `authorizer`, or `job <name>`. */
  key: string;
  /** A name as Lambda's AWS_LAMBDA_FUNCTION_NAME, from the construct path. */
  name: string;
  /** The asset directory of its bundle in the cloud assembly; undefined when synthesized without bundling. */
  codeDirectory: string | undefined;
  /** `index.handler`. */
  handler: string;
  runtime: string;
  timeoutSeconds: number;
  memoryMb: number;
  /** Its template's environment, references resolved. */
  environment: Record<string, string>;
  /** Lambda's application log level and format (its template's LoggingConfig). */
  logging: { level?: string; format?: string };
}

export interface Deployment {
  functions: Map<string, DeployedFunction>;
  secrets: DeployedSecrets;
  /** The cloud assembly's directory: its bundles live there until `remove()`. */
  directory: string;
  remove(): void;
}

export const AUTHORIZER_KEY = 'authorizer';
export const jobKey = (job: Pick<JobDefinition, 'name'>): string => `job ${job.name}`;
export const routeKey = (route: RouteDefinition): string => routeId(route);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a CloudFormation resource's properties, read by name
type Template = { Parameters?: Record<string, unknown>; Resources: Record<string, { Type: string; Properties?: Record<string, any> }> };

/** A template, and for a nested stack's template, where its parameters come from in the parent. */
interface Scope {
  template: Template;
  parent?: { scope: Scope; resourceId: string };
}

const PSEUDO = (local: LocalResources): Record<string, string> => ({
  'AWS::Region': local.region,
  'AWS::AccountId': local.account,
  'AWS::Partition': 'aws',
  'AWS::URLSuffix': 'amazonaws.com',
});

/**
 * The live channel's addresses (the WebSocket API and its management API): locally the server's
 * own `/realtime` serves the channel (docs/local-and-aws.md), so the functions are given neither
 * and the ticket answers the local address, as under `npm start`.
 */
const SERVED_BY_THE_LOCAL_SERVER = new Set(['REALTIME_URL', 'REALTIME_MANAGEMENT_URL']);

const secretArn = (local: LocalResources, logicalId: string) => `arn:aws:secretsmanager:${local.region}:${local.account}:secret:${logicalId}-local`;

/**
 * A template value as CloudFormation would deploy it, with the local stand-ins' names: a table's
 * Ref is its name, a secret's Ref its ARN, a nested stack's parameter what the parent passes. Any
 * other intrinsic fails loudly, so a new kind of environment value is noticed, not passed on raw.
 */
export function resolveTemplateValue(value: unknown, scope: Scope, local: LocalResources): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const object = value as Record<string, unknown>;
  if (typeof object.Ref === 'string') {
    const name = object.Ref;
    const pseudo = PSEUDO(local)[name];
    if (pseudo !== undefined) return pseudo;
    if (scope.template.Parameters?.[name] !== undefined && scope.parent) {
      const passed = scope.parent.scope.template.Resources[scope.parent.resourceId]?.Properties?.Parameters?.[name];
      if (passed === undefined) throw new Error(`The parent passes no parameter ${name}`);
      return resolveTemplateValue(passed, scope.parent.scope, local);
    }
    const resource = scope.template.Resources[name];
    if (resource?.Type === 'AWS::DynamoDB::Table') return local.tableName;
    if (resource?.Type === 'AWS::SecretsManager::Secret') return secretArn(local, name);
    throw new Error(`No local value for Ref ${name} (${resource?.Type ?? 'not a resource'})`);
  }
  const getAtt = object['Fn::GetAtt'] as [string, string] | undefined;
  if (getAtt) {
    const [id, attribute] = getAtt;
    const resource = scope.template.Resources[id];
    if (resource?.Type === 'AWS::DynamoDB::Table' && attribute === 'Arn') return `arn:aws:dynamodb:${local.region}:${local.account}:table/${local.tableName}`;
    throw new Error(`No local value for Fn::GetAtt ${id}.${attribute}`);
  }
  const join = object['Fn::Join'] as [string, unknown[]] | undefined;
  if (join) return join[1].map((part) => resolveTemplateValue(part, scope, local)).join(join[0]);
  throw new Error(`No local value for ${JSON.stringify(value)}`);
}

/**
 * Synthesizes the app as `cdk synth -c stage=... -c KEY=VALUE` does, into a new temporary
 * directory. `bundle: false` skips esbuild (`aws:cdk:bundling-stacks`, as `cdk synth --exclusively`
 * of nothing): templates only, for an environment over bundles built before.
 */
export function synthesizeDeployment(options: { context: Record<string, string>; local: LocalResources; bundle: boolean }): Deployment {
  const directory = mkdtempSync(join(tmpdir(), 'captioning-deployed-'));
  try {
    // The functions are served here, not the templates: CDK's check of them against CloudFormation's
    // rules is the CLI's synthesis's (docs/deploying.md).
    const app = new App({ outdir: directory, context: { ...options.context, ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }) }, builtinCloudFormationValidation: false });
    const stack = addServiceStack(app);
    app.synth();
    return { ...functionsOf(stack, directory, options.local, options.bundle), directory, remove: () => rmSync(directory, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
}

function functionsOf(stack: ServiceStack, directory: string, local: LocalResources, bundled: boolean): Pick<Deployment, 'functions' | 'secrets'> {
  const templates = new Map<Stack, Scope>();
  const scopeOf = (owner: Stack): Scope => {
    let scope = templates.get(owner);
    if (scope) return scope;
    const template = JSON.parse(readFileSync(join(directory, owner.templateFile), 'utf8')) as Template;
    const nested = owner.nested ? (owner as NestedStack) : undefined;
    const parent = nested ? { scope: scopeOf(nested.nestedStackParent!), resourceId: logicalIdOf(nested.nestedStackResource!) } : undefined;
    scope = { template, ...(parent ? { parent } : {}) };
    templates.set(owner, scope);
    return scope;
  };

  const functions = new Map<string, DeployedFunction>();
  const add = (key: string, fn: ServiceFunction) => {
    const cfn = fn.function.node.defaultChild as CfnResource;
    const scope = scopeOf(Stack.of(cfn));
    const id = logicalIdOf(cfn);
    const properties = scope.template.Resources[id]?.Properties;
    if (!properties) throw new Error(`${key}: no function ${id} in ${Stack.of(cfn).templateFile}`);
    const variables = (properties.Environment?.Variables ?? {}) as Record<string, unknown>;
    const s3Key = properties.Code?.S3Key as string | undefined;
    functions.set(key, {
      key,
      name: `${stack.stackName}-${fn.node.path.split('/').slice(1).join('-')}`.slice(0, 64),
      codeDirectory: bundled && s3Key ? join(directory, `asset.${s3Key.replace(/\.zip$/, '')}`) : undefined,
      handler: properties.Handler as string,
      runtime: properties.Runtime as string,
      timeoutSeconds: Number(properties.Timeout ?? 3),
      memoryMb: Number(properties.MemorySize ?? 128),
      environment: Object.fromEntries(
        Object.entries(variables)
          .filter(([name]) => !SERVED_BY_THE_LOCAL_SERVER.has(name))
          .map(([name, value]) => [name, resolveTemplateValue(value, scope, local)]),
      ),
      logging: { level: properties.LoggingConfig?.ApplicationLogLevel, format: properties.LoggingConfig?.LogFormat },
    });
  };
  add(AUTHORIZER_KEY, stack.authorizerFunction);
  for (const deployed of stack.deployedRoutes) add(routeKey(deployed.route), deployed.function);
  for (const fn of stack.jobFunctions) {
    const job = jobTable.find((candidate) => constructIdOf('job', candidate.name) === fn.node.id);
    if (!job) throw new Error(`The job function ${fn.node.path} is no job of the route table`);
    add(jobKey(job), fn);
  }
  const secretOf = (resource: { node: { defaultChild?: unknown } } | undefined) =>
    resource ? secretArn(local, logicalIdOf(resource.node.defaultChild as CfnResource)) : undefined;
  const provider = secretOf(stack.providerSecret);
  const speech = secretOf(stack.speechSecret);
  const push = secretOf(stack.pushSecret);
  return { functions, secrets: { root: secretOf(stack.rootSecret)!, ...(provider ? { provider } : {}), ...(speech ? { speech } : {}), ...(push ? { push } : {}) } };
}

const logicalIdOf = (resource: CfnResource): string => Stack.of(resource).resolve(resource.logicalId) as string;
