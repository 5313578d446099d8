import { routes } from '../../shared/routes';
import { METRICS } from '../../shared/ports/metrics';
import type { MetricDimension } from '../../shared/ports/metrics';
import { ofType, synthesize } from '../infra/synth';
import type { Resource } from '../infra/synth';
import type { UsageProfile } from './cost-model';

/**
 * What a deployment pays for by the month whatever its traffic: the WAF web ACL and its rules, the
 * alarms, the dashboard, the custom metrics and the root secret. Counted in the synthesized
 * template of the stage (`cdk synth -c stage=prod`), so an alarm or a WAF rule added to the stack
 * is priced without anyone remembering to. Spread over the profile's users in cost-model.ts.
 */
export interface DeploymentInventory {
  stage: string;
  webAcls: number;
  /** Rules of all web ACLs: each is billed by the month (a managed rule group counts as one). */
  wafRules: number;
  alarms: number;
  compositeAlarms: number;
  dashboards: number;
  secrets: number;
  /** Custom metric series: each metric name and dimension value is one billed metric. */
  customMetrics: number;
}

/**
 * How many values each business-metric dimension takes (shared/ports/metrics.ts): the code
 * channels, the sign-in methods the services count (`SignIns`), and the countries the profile
 * sends SMS to (only they make a `country` series).
 */
const dimensionValues: Record<MetricDimension, (profile: UsageProfile) => number> = {
  channel: () => 2, // email, sms
  method: () => 3, // code, password, refresh
  country: (profile) => Object.keys(profile.codeChannels.sms).length,
  // The admin API (issue 37): one series per operation; its callers are the team's SSO roles.
  operation: () => routes.filter((route) => route.auth === 'iam').length,
  actorKind: () => 1, // assumed-role
  reason: () => 3, // social sign-in refusals: invalid-credential, link-required, provider-unavailable
  provider: () => 2, // speech providers a deployment offers (docs/speech.md): typically two, one a fallback
};

/** Every metric of METRICS once per value of its dimension (`service` is one value per stage). */
export function customMetricSeries(profile: UsageProfile): number {
  return Object.values(METRICS).reduce((sum, dimension: MetricDimension | undefined) => sum + (dimension ? dimensionValues[dimension](profile) : 1), 0);
}

export function inventoryOf(resources: Record<string, Resource>, stage: string, profile: UsageProfile): DeploymentInventory {
  const count = (type: string) => ofType(resources, type).length;
  return {
    stage,
    webAcls: count('AWS::WAFv2::WebACL'),
    wafRules: ofType(resources, 'AWS::WAFv2::WebACL').reduce((sum, [, acl]) => sum + ((acl.Properties?.Rules as unknown[] | undefined)?.length ?? 0), 0),
    alarms: count('AWS::CloudWatch::Alarm'),
    compositeAlarms: count('AWS::CloudWatch::CompositeAlarm'),
    dashboards: count('AWS::CloudWatch::Dashboard'),
    secrets: count('AWS::SecretsManager::Secret'),
    customMetrics: customMetricSeries(profile),
  };
}

/**
 * A production deployment as docs/deploying.md's `cdk deploy` sets it up: a sender address, the app's
 * origin (one WAF blocking rule per origin) and an alarm topic. No bundling: only resources are counted.
 */
export const PROD_CONTEXT = {
  stage: 'prod',
  SES_FROM_ADDRESS: 'no-reply@example.com',
  CORS_ORIGINS: 'https://app.example.com',
  alarmTopicArn: 'arn:aws:sns:us-east-1:123456789012:alarms',
};

export function deploymentInventory(profile: UsageProfile, context: Record<string, string> = PROD_CONTEXT): DeploymentInventory {
  return inventoryOf(synthesize(context, { bundle: false }).resources, context.stage ?? 'dev', profile);
}
