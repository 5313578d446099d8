import { App } from 'aws-cdk-lib';
import type { NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { addServiceStack } from '../../infra/stack';
import type { ServiceStack, ServiceStackProps } from '../../infra/stack';

export type Resource = { Type: string; Properties?: any; DeletionPolicy?: string; UpdateReplacePolicy?: string; DependsOn?: unknown };
export type Statement = { Effect: 'Allow' | 'Deny'; Action: string | string[]; Resource?: unknown; NotResource?: unknown; Condition?: any };

/** One CloudFormation template of the app: the parent stack's or a nested (area) stack's. */
export interface StackTemplate {
  stack: Stack;
  /** The stack's own template, as CloudFormation deploys it. */
  json: { Resources: Record<string, Resource>; Parameters?: Record<string, unknown>; Outputs?: Record<string, unknown> };
}

export interface Synthesized {
  app: App;
  stack: ServiceStack;
  /** The parent and every nested stack, each on its own. */
  stacks: StackTemplate[];
  /** The whole service as one template (see `flatten`): what the assertions read. */
  template: Template;
  assembly: CloudAssembly;
  /** Every resource of every stack, cross-stack references resolved to the logical ids they name. */
  resources: Record<string, Resource>;
}

/**
 * What the CDK CLI hands every app besides the `-c` values and cdk.json's context (its
 * CDK_CONTEXT_JSON, as `cdk synth` 2.1148 passes it). It also passes
 * `@aws-cdk/core:failSynthOnValidationErrors: false`, which leaves a refused validation to the CLI
 * (it prints the report and exits 1); left out here, so that `app.synth()` throws on it instead.
 */
export const CLI_CONTEXT: Record<string, unknown> = {
  'aws:cdk:enable-path-metadata': true,
  'aws:cdk:enable-asset-metadata': true,
  'aws:cdk:version-reporting': true,
  'aws:cdk:bundling-stacks': ['**'],
};

/**
 * The environment the CLI gives the app (CDK_DEFAULT_REGION, CDK_DEFAULT_ACCOUNT): the configured
 * region, else us-east-1, and the account of the credentials, if there are any.
 */
export interface CliEnvironment {
  region: string;
  account?: string;
}

/** What `cdk synth` sets on a machine without AWS configuration (this one, CI). */
export const CLI_DEFAULT_ENVIRONMENT: CliEnvironment = { region: 'us-east-1' };

/**
 * Synthesizes the app as `cdk synth -c ...` does: the CLI's context and environment (`environment`,
 * by default what the CLI sets without credentials). `bundle: false` skips esbuild (CDK's
 * `aws:cdk:bundling-stacks`) for tests that only read settings from the template. `tables` replaces
 * the route table or the jobs (to measure what more routes would cost). Throws when a validation
 * (cdk-nag) refuses the app, as the CLI then exits 1.
 */
export function synthesize(
  context: Record<string, unknown> = {},
  options: { bundle?: boolean; tables?: Pick<ServiceStackProps, 'routes' | 'jobs'>; environment?: CliEnvironment } = {},
): Synthesized {
  const app = new App({
    context: { ...CLI_CONTEXT, stage: 'dev', ...context, ...(options.bundle === false ? { 'aws:cdk:bundling-stacks': [] } : {}) },
    // CDK's built-in check of the templates against CloudFormation's own rules runs where the team
    // meets it: in the CLI's syntheses of test/infra/cli-synth.test.ts, which also fail on any
    // finding of it (its cost: docs/contributing.md, "Where the time of npm test goes").
    builtinCloudFormationValidation: false,
  });
  const stack = withCliEnvironment(options.environment ?? CLI_DEFAULT_ENVIRONMENT, () => addServiceStack(app, options.tables));
  // The areas, and the live channel's nested stack (infra/constructs/realtime-area.ts).
  const nested: NestedStack[] = [...stack.areas, ...(stack.realtime ? [stack.realtime] : [])];
  const stacks: StackTemplate[] = [stack, ...nested].map((each) => ({ stack: each, json: Template.fromStack(each).toJSON() as StackTemplate['json'] }));
  const assembly = app.synth();
  const flat = flatten(stack, nested, stacks);
  return { app, stack, stacks, template: Template.fromJSON(flat), assembly, resources: flat.Resources };
}

/**
 * The same synthesis as `synthesize(context, options)`, made once per process and handed to every
 * caller with the same context, environment and bundling (the route table's own routes): the
 * infra files run in one process (vitest.config.ts), so a context several files read (dev, prod)
 * is synthesized once for all of them. The result is shared: read it, never add to its app. A test
 * of what two syntheses have in common (the deployment id) calls `synthesize` itself.
 */
export function synthesizeOnce(context: Record<string, unknown> = {}, options: { bundle?: boolean; environment?: CliEnvironment } = {}): Synthesized {
  const key = JSON.stringify([context, options.bundle ?? true, options.environment ?? CLI_DEFAULT_ENVIRONMENT]);
  let made = shared.get(key);
  if (!made) {
    made = synthesize(context, options);
    shared.set(key, made);
  }
  return made;
}
const shared = new Map<string, Synthesized>();

/** Runs `build` with CDK_DEFAULT_REGION and CDK_DEFAULT_ACCOUNT set as the CLI sets them (the app reads them), then puts them back. */
export function withCliEnvironment<T>(environment: CliEnvironment, build: () => T): T {
  const saved = { region: process.env.CDK_DEFAULT_REGION, account: process.env.CDK_DEFAULT_ACCOUNT };
  const put = (name: string, value: string | undefined) => (value === undefined ? delete process.env[name] : (process.env[name] = value));
  put('CDK_DEFAULT_REGION', environment.region);
  put('CDK_DEFAULT_ACCOUNT', environment.account);
  try {
    return build();
  } finally {
    put('CDK_DEFAULT_REGION', saved.region);
    put('CDK_DEFAULT_ACCOUNT', saved.account);
  }
}

/**
 * The parent and its nested stacks as one template, so that every assertion written for the single
 * stack reads the same across stacks: a nested stack's parameter becomes the value the parent passes
 * (`{Ref: Table}`), a parent's `Fn::GetAtt [<nested>, Outputs.X]` becomes the nested output's value
 * (`{Ref: <function>}`); the AWS::CloudFormation::Stack resources themselves are left out. Fails
 * on a logical id used in two stacks, which would make the view ambiguous.
 */
function flatten(parent: Stack, nested: readonly NestedStack[], stacks: StackTemplate[]): StackTemplate['json'] {
  const [parentTemplate, ...nestedTemplates] = stacks.map((each) => each.json);
  const nestedIds = nested.map((each) => parent.resolve((each.nestedStackResource as { logicalId: string }).logicalId) as string);
  const rewrite = (value: unknown, replace: (node: any) => unknown): unknown => {
    if (Array.isArray(value)) return value.map((item) => rewrite(item, replace));
    if (value && typeof value === 'object') {
      const replaced = replace(value);
      if (replaced !== undefined) return replaced;
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, rewrite(item, replace)]));
    }
    return value;
  };
  const resolvedNested = nestedTemplates.map((template, index) => {
    const passed: Record<string, unknown> = parentTemplate!.Resources[nestedIds[index]!]!.Properties?.Parameters ?? {};
    return rewrite(template, (node) => (typeof node.Ref === 'string' && node.Ref in passed ? passed[node.Ref] : undefined)) as StackTemplate['json'];
  });
  const outputOf = (node: any) => {
    const getAtt = node['Fn::GetAtt'];
    if (!Array.isArray(getAtt) || typeof getAtt[1] !== 'string' || !getAtt[1].startsWith('Outputs.')) return undefined;
    const index = nestedIds.indexOf(getAtt[0]);
    if (index < 0) return undefined;
    return (resolvedNested[index]!.Outputs as Record<string, { Value: unknown }>)[getAtt[1].slice('Outputs.'.length)]!.Value;
  };
  const resolvedParent = rewrite(parentTemplate, outputOf) as StackTemplate['json'];
  const resources: Record<string, Resource> = {};
  for (const template of [resolvedParent, ...resolvedNested]) {
    for (const [id, resource] of Object.entries(template.Resources)) {
      if (resource.Type === 'AWS::CloudFormation::Stack') continue;
      // CDK's version report (`aws:cdk:version-reporting`, on under the CLI): one `CDKMetadata` in every stack, kept once.
      if (resource.Type === 'AWS::CDK::Metadata' && id in resources) continue;
      if (id in resources) throw new Error(`Logical id ${id} is used in two stacks`);
      resources[id] = resource;
    }
  }
  return { ...resolvedParent, Resources: resources };
}

export const ofType = (resources: Record<string, Resource>, type: string): [string, Resource][] =>
  Object.entries(resources).filter(([, resource]) => resource.Type === type);

export const asArray = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** The logical id behind `{Ref: X}` or `{Fn::GetAtt: [X, ...]}`. */
export function refOf(value: any): string | undefined {
  if (value && typeof value === 'object') {
    if (typeof value.Ref === 'string') return value.Ref;
    if (Array.isArray(value['Fn::GetAtt'])) return value['Fn::GetAtt'][0];
  }
  return undefined;
}

/** Every logical id a value refers to, however deeply nested (Fn::Join, Fn::Sub ...). */
export function referencedIds(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((item) => referencedIds(item, found));
  else if (value && typeof value === 'object') {
    const direct = refOf(value);
    if (direct) found.add(direct);
    Object.values(value).forEach((item) => referencedIds(item, found));
  }
  return found;
}

/** Full path of every API Gateway resource, e.g. `/api/v1/users/me`. */
export function resourcePaths(resources: Record<string, Resource>): Map<string, string> {
  const paths = new Map<string, string>();
  const resolve = (id: string): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const resource = resources[id]!;
    const parent = refOf(resource.Properties.ParentId);
    const parentIsRoot = resource.Properties.ParentId['Fn::GetAtt']?.[1] === 'RootResourceId';
    const path = `${parentIsRoot || !parent ? '' : resolve(parent)}/${resource.Properties.PathPart}`;
    paths.set(id, path);
    return path;
  };
  for (const [id] of ofType(resources, 'AWS::ApiGateway::Resource')) resolve(id);
  return paths;
}

export interface DeployedMethod {
  id: string;
  httpMethod: string;
  path: string;
  authorizationType: string;
  authorizerId: string | undefined;
  /** The function the integration invokes (logical id), if it is a Lambda proxy. */
  functionId: string | undefined;
}

export function deployedMethods(resources: Record<string, Resource>): DeployedMethod[] {
  const paths = resourcePaths(resources);
  return ofType(resources, 'AWS::ApiGateway::Method').map(([id, method]) => {
    const resourceId = refOf(method.Properties.ResourceId);
    const isRoot = method.Properties.ResourceId?.['Fn::GetAtt']?.[1] === 'RootResourceId';
    const integrationRefs = [...referencedIds(method.Properties.Integration?.Uri ?? {})];
    return {
      id,
      httpMethod: method.Properties.HttpMethod,
      path: isRoot ? '/' : paths.get(resourceId!)!,
      authorizationType: method.Properties.AuthorizationType,
      authorizerId: refOf(method.Properties.AuthorizerId),
      functionId: integrationRefs.find((ref) => resources[ref]?.Type === 'AWS::Lambda::Function'),
    };
  });
}

/** The statements of every policy attached to a function's role. */
export function statementsOfFunction(resources: Record<string, Resource>, functionId: string): Statement[] {
  const roleId = refOf(resources[functionId]!.Properties.Role)!;
  const role = resources[roleId]!;
  const inline = asArray(role.Properties.Policies).flatMap((policy: any) => asArray(policy.PolicyDocument.Statement));
  const attached = ofType(resources, 'AWS::IAM::Policy')
    .filter(([, policy]) => asArray(policy.Properties.Roles).some((ref) => refOf(ref) === roleId))
    .flatMap(([, policy]) => asArray<Statement>(policy.Properties.PolicyDocument.Statement));
  expectNoManagedPolicies(role);
  return [...inline, ...attached];
}

function expectNoManagedPolicies(role: Resource): void {
  if (asArray(role.Properties.ManagedPolicyArns).length > 0) throw new Error('A function role has managed policies');
}

export const allowedActions = (statements: Statement[]): string[] =>
  statements.filter((statement) => statement.Effect === 'Allow').flatMap((statement) => asArray(statement.Action));

export function functionIdByDescription(resources: Record<string, Resource>, description: string): string {
  const found = ofType(resources, 'AWS::Lambda::Function').filter(([, fn]) => fn.Properties.Description === description);
  if (found.length !== 1) throw new Error(`Expected one function described "${description}", found ${found.length}`);
  return found[0]![0];
}
