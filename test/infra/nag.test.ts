import { App, Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { addServiceStack } from '../../infra/stack';
import { ofType, synthesizeOnce } from './synth';
import type { CliEnvironment } from './synth';

/**
 * cdk-nag 3 runs as a CDK policy-validation plugin: findings are not annotations any more but a
 * validation report, and an unacknowledged one fails the synthesis. These tests read the report
 * directly (`validateScope`) so that a failure names the rule and the construct.
 */
const VARIANTS: [string, Record<string, unknown>][] = [
  ['dev', {}],
  ['dev without WAF', { waf: 'false' }],
  ['prod with WAF and alarm topic', { stage: 'prod', SES_FROM_ADDRESS: 'no-reply@example.com', CORS_ORIGINS: 'https://app.example.com', waf: 'true', alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:alarms' }],
  ['prod in maintenance (the first step of moving to nested stacks)', { stage: 'prod', SES_FROM_ADDRESS: 'no-reply@example.com', CORS_ORIGINS: 'https://app.example.com', maintenance: 'true' }],
];

/** The app as `cdk synth` builds it in each region, with an account id (credentials of that account). */
const ACCOUNT = '123456789012';
const ENVIRONMENTS: CliEnvironment[] = ['us-east-1', 'eu-west-1', 'ap-southeast-1'].map((region) => ({ region, account: ACCOUNT }));
const STAGES: [string, Record<string, unknown>][] = [
  ['dev', { SES_FROM_ADDRESS: 'Captions <no-reply@example.com>' }],
  ['prod', { stage: 'prod', SES_FROM_ADDRESS: 'Captions <no-reply@example.com>', CORS_ORIGINS: 'https://app.example.com', alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:on-call' }],
];

const describeViolations = (report: ReturnType<AwsSolutionsChecks['validateScope']>) =>
  report.violations.flatMap((violation) => violation.violatingResources.map((resource) => `${violation.ruleName} (${violation.severity}) at ${resource.constructPath}`));

/** Every acknowledgment in the tree: where, which rule, why. */
function acknowledgments(root: IConstruct): { path: string; id: string; reason: string }[] {
  return root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          path: construct.node.path,
          id: id.replace(/^annotation::/i, ''),
          reason,
        })),
      ),
  );
}

/** Every acknowledgment has a reason and answers a finding the checks make without it (none is stale). */
function expectEveryAcknowledgmentAnswered(app: IConstruct): void {
  const acknowledged = acknowledgments(app);
  expect(acknowledged.length).toBeGreaterThan(0);
  for (const { path, id, reason } of acknowledged) {
    expect(id, path).toMatch(/^AwsSolutions-/);
    expect(reason.length, `${id} at ${path}`).toBeGreaterThanOrEqual(40);
  }
  // The same checks with acknowledgments ignored: what they would report without them.
  const raw = new AwsSolutionsChecks();
  (raw as unknown as { isAcknowledged: () => boolean }).isAcknowledged = () => false;
  const findings = raw.validateScope(app).violations.flatMap((violation) =>
    violation.violatingResources.map((resource) => ({ id: violation.ruleName, path: resource.constructPath ?? '' })),
  );
  for (const { path, id } of acknowledged) {
    const answered = findings.some((finding) => finding.id === id && (finding.path === path || finding.path.startsWith(`${path}/`)));
    expect(answered, `stale acknowledgment ${id} at ${path}`).toBe(true);
  }
}

describe.each(VARIANTS)('cdk-nag AwsSolutions on the %s stack', (_name, context) => {
  let app: App;
  let stack: ReturnType<typeof synthesizeOnce>['stack'];
  beforeAll(() => {
    ({ app, stack } = synthesizeOnce(context, { bundle: false }));
  });

  it('has no unacknowledged finding, error or warning', () => {
    expect(describeViolations(new AwsSolutionsChecks().validateScope(app))).toEqual([]);
  });

  it('gives every acknowledgment a reason, and each one answers a real finding', () => {
    expectEveryAcknowledgmentAnswered(app);
  });

  it('has no error annotation from CDK itself, in the parent or any area stack', () => {
    expect(Annotations.fromStack(stack).findError('*', Match.anyValue())).toEqual([]);
    // The nested stacks are no artifacts of their own: their constructs' annotations, read directly.
    // In maintenance (the first step of moving a stage to nested stacks) the routes are away.
    if (context.maintenance === 'true') expect(stack.areas).toEqual([]);
    else expect(stack.areas.length).toBeGreaterThan(0);
    const errors = stack.areas.flatMap((area) =>
      area.node.findAll().flatMap((construct) => construct.node.metadata.filter((entry) => entry.type === 'aws:cdk:error').map((entry) => `${construct.node.path}: ${String(entry.data)}`)),
    );
    expect(errors).toEqual([]);
  });

  it('checks the area stacks too: a finding in a nested stack fails the synthesis', () => {
    const app = new App({ context: { stage: 'dev', 'aws:cdk:bundling-stacks': [] } });
    const parent = addServiceStack(app);
    new Secret(parent.areas[0]!, 'Unacknowledged');
    expect(() => app.synth()).toThrow(/AwsSolutions-SMG4/);
  });
});

/**
 * As the team runs it: `cdk synth` sets CDK_DEFAULT_REGION (and, with credentials, CDK_DEFAULT_ACCOUNT),
 * so the region and account are literals in the template, not tokens. An acknowledgment written
 * against the token's text (`<AWS::Region>`) answers nothing there and the synthesis fails.
 */
describe.each(STAGES)('cdk-nag on the %s stage as `cdk synth` builds it in each region, with an account', (_stage, context) => {
  it.each(ENVIRONMENTS.map((environment) => [environment.region, environment] as const))('%s: accepted (a refusal fails the synthesis), every acknowledgment answering a finding', (region, environment) => {
    const { app, resources } = synthesizeOnce(context, { bundle: false, environment });
    expect(describeViolations(new AwsSolutionsChecks().validateScope(app))).toEqual([]);
    expectEveryAcknowledgmentAnswered(app);
    // The support policies name this region and account as literals: what the acknowledgments had to follow.
    const policies = ofType(resources, 'AWS::IAM::ManagedPolicy').map(([, policy]) => JSON.stringify(policy.Properties.PolicyDocument));
    expect(policies.length).toBe(3);
    for (const policy of policies) expect(policy).toContain(`:execute-api:${region}:${ACCOUNT}:`);
  });
});

describe('cdk-nag enforcement', () => {
  it('fails the synthesis when a finding is not acknowledged', () => {
    const app = new App({ context: { stage: 'dev', 'aws:cdk:bundling-stacks': [] } });
    const stack = addServiceStack(app);
    // A secret without rotation and without an acknowledgment: AwsSolutions-SMG4.
    new Secret(stack, 'Unacknowledged');
    expect(() => Template.fromStack(stack)).toThrow(/AwsSolutions-SMG4/);
  });

  it('reports findings on any stack (the checks run at all)', () => {
    const app = new App();
    const stack = new Stack(app, 'Plain');
    new Secret(stack, 'Plain');
    expect(describeViolations(new AwsSolutionsChecks().validateScope(app)).join('\n')).toMatch(/AwsSolutions-SMG4/);
  });
});
