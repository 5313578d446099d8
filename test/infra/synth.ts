import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { addServiceStack } from '../../infra/stack';
import type { ServiceStack } from '../../infra/stack';

export type Resource = { Type: string; Properties?: any; DeletionPolicy?: string; UpdateReplacePolicy?: string; DependsOn?: unknown };
export type Statement = { Effect: 'Allow' | 'Deny'; Action: string | string[]; Resource?: unknown; NotResource?: unknown; Condition?: any };

export interface Synthesized {
  app: App;
  stack: ServiceStack;
  template: Template;
  assembly: CloudAssembly;
  resources: Record<string, Resource>;
}

/**
 * Synthesizes the app as `cdk synth -c ...` would. `bundle: false` skips esbuild (CDK's
 * `aws:cdk:bundling-stacks`) for tests that only read settings from the template.
 */
export function synthesize(context: Record<string, unknown> = {}, options: { bundle?: boolean } = {}): Synthesized {
  const app = new App({
    context: { stage: 'dev', ...context, ...(options.bundle === false ? { 'aws:cdk:bundling-stacks': [] } : {}) },
  });
  const stack = addServiceStack(app);
  const template = Template.fromStack(stack);
  const assembly = app.synth();
  return { app, stack, template, assembly, resources: template.toJSON().Resources };
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
