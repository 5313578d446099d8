import { CfnOutput, Stack, Validations } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
// cdk-nag's own rendering of a policy's resource into the text of its finding (IAM5 reads resources through it).
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference.js';
import { Construct } from 'constructs';
import { routeId } from '../../shared/routes';
import type { RouteDefinition } from '../../shared/routes';

/** The three roles of support work, and what each policy is for. */
export const SUPPORT_POLICIES = {
  read: { id: 'SupportRead', description: 'Support: look accounts up and read the admin audit trail (GET /admin/...)' },
  write: { id: 'SupportWrite', description: 'Support: sign out, unlock, disable and enable accounts, release serials' },
  delete: { id: 'SupportDelete', description: 'Support: delete accounts (erasure requests)' },
} as const;

export type SupportPolicy = keyof typeof SUPPORT_POLICIES;

/** The execute-api ARN of a route on a stage: a `{parameter}` of its path matches any one value. */
export const invokeArnOf = (api: RestApi, route: RouteDefinition, stage: string) => api.arnForExecuteApi(route.method, route.path.replace(/\{\w+\}/g, '*'), stage);

/**
 * The admin API's managed policies (issue 37): one per `support` group of the route table, each
 * allowing `execute-api:Invoke` on exactly its routes' methods and paths of this stage and
 * nothing else, for the team to attach to their roles or SSO permission sets. Their ARNs are
 * outputs (`SupportReadPolicyArn` ...).
 */
export class SupportPolicies extends Construct {
  readonly policies: Partial<Record<SupportPolicy, ManagedPolicy>> = {};

  constructor(scope: Construct, id: string, props: { api: RestApi; stageName: string; routes: readonly RouteDefinition[] }) {
    super(scope, id);
    for (const group of Object.keys(SUPPORT_POLICIES) as SupportPolicy[]) {
      const routes = props.routes.filter((route) => route.auth === 'iam' && route.support === group);
      if (routes.length === 0) continue;
      const { id: name, description } = SUPPORT_POLICIES[group];
      const policy = new ManagedPolicy(this, name, {
        description,
        statements: [new PolicyStatement({ actions: ['execute-api:Invoke'], resources: routes.map((route) => invokeArnOf(props.api, route, props.stageName)) })],
      });
      // cdk-nag names each wildcard resource (a path parameter) as a finding of its own: `Resource::` and
      // the resource as the template holds it, flattened. Its text is taken from the very ARN the
      // statement names, resolved in this stack, so it reads whatever the stack renders: tokens
      // (`<AWS::Region>`) when synthesized without an environment, literals when the CDK CLI sets
      // CDK_DEFAULT_REGION/ACCOUNT (and the partition of that region). One per route, as narrow as before.
      const stack = Stack.of(policy);
      for (const route of routes.filter((candidate) => candidate.path.includes('{'))) {
        const resource = flattenCfnReference(stack.resolve(invokeArnOf(props.api, route, props.stageName)));
        Validations.of(policy).acknowledge({
          id: `AwsSolutions-IAM5[Resource::${resource}]`,
          reason: `A path parameter of an execute-api ARN can only be a wildcard: ${routeId(route)}, exactly its method and path`,
        });
      }
      new CfnOutput(scope, `${name}PolicyArn`, { value: policy.managedPolicyArn, description: `${description}: attach to a role or SSO permission set` });
      this.policies[group] = policy;
    }
  }
}
