import { describe, expect, it } from 'vitest';
import { DEFAULT_BUSINESS_ALARMS } from '../../infra/stage-settings';
import { DELIVERY_FAILURE_MIN_ATTEMPTS, DELIVERY_FAILURE_RATE_PERCENT } from '../../infra/constructs/business-alarms';
import { METRICS, METRIC_NAMESPACE } from '../../shared/ports/metrics';
import { ofType, refOf, synthesizeOnce } from './synth';
import type { Synthesized } from './synth';

// Settings only: no bundling (the bundles are checked in stack.test.ts).
const synth = (context: Record<string, unknown> = {}) => synthesizeOnce(context, { bundle: false });
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:on-call';

/** The business alarms: those on the service's own namespace, directly or through metric math. */
const businessAlarms = (synthesized: Synthesized) =>
  ofType(synthesized.resources, 'AWS::CloudWatch::Alarm')
    .map(([id, alarm]) => ({ id, ...alarm.Properties }))
    .filter((alarm) => JSON.stringify(alarm).includes(`"${METRIC_NAMESPACE}"`));
const alarmOn = (synthesized: Synthesized, metricName: string) => {
  const found = businessAlarms(synthesized).filter((alarm) => alarm.MetricName === metricName);
  expect(found, metricName).toHaveLength(1);
  return found[0]!;
};
const dimensionsOf = (alarm: { Dimensions?: { Name: string; Value: string }[] }) => Object.fromEntries((alarm.Dimensions ?? []).map((d) => [d.Name, d.Value]));

describe('business alarms', () => {
  const dev = synth();
  const tuned = synth({ alarmSmsCodesPerHour: 1000, alarmLoginLockoutsPerHour: 7, alarmTopicArn: TOPIC });

  it('are seven: SMS per hour, delivery failure rate, refresh reuse, lockouts per hour, support removals per hour, social refusals, Apple revocations abandoned', () => {
    expect(businessAlarms(dev)).toHaveLength(7);
  });

  it('social refusals: invalid credentials and an unreachable provider summed over 15 minutes, above the context threshold', () => {
    const tunedSocial = synth({ alarmSocialRefusalsPer15Minutes: 7 });
    for (const [synthesized, threshold] of [[dev, DEFAULT_BUSINESS_ALARMS.socialRefusalsPer15Minutes], [tunedSocial, 7]] as const) {
      const [alarm] = businessAlarms(synthesized).filter((candidate) => JSON.stringify(candidate).includes('SocialSignInsRefused'));
      expect(alarm).toMatchObject({ Threshold: threshold, ComparisonOperator: 'GreaterThanThreshold', EvaluationPeriods: 1 });
      const metrics = (alarm!.Metrics as { MetricStat?: { Metric: { MetricName: string; Dimensions: { Name: string; Value: string }[] }; Period: number } }[]).flatMap((entry) => (entry.MetricStat ? [entry.MetricStat] : []));
      expect(metrics.map((stat) => stat.Metric.Dimensions.find((dimension) => dimension.Name === 'reason')?.Value).sort()).toEqual(['invalid-credential', 'provider-unavailable']);
      expect(metrics.every((stat) => stat.Metric.MetricName === 'SocialSignInsRefused' && stat.Period === 900)).toBe(true);
    }
  });

  it('support removals per hour: AdminAccountRemovals summed over an hour, above the context threshold', () => {
    const alarm = alarmOn(dev, 'AdminAccountRemovals');
    expect(alarm).toMatchObject({ Statistic: 'Sum', Period: 3600, Threshold: DEFAULT_BUSINESS_ALARMS.adminRemovalsPerHour, ComparisonOperator: 'GreaterThanThreshold' });
    expect(dimensionsOf(alarm)).toEqual({ service: 'captioning-dev' });
  });

  it('SMS codes per hour: CodesSent of the sms channel, summed over an hour, above the context threshold', () => {
    for (const [synthesized, threshold] of [[dev, DEFAULT_BUSINESS_ALARMS.smsCodesPerHour], [tuned, 1000]] as const) {
      const alarm = alarmOn(synthesized, 'CodesSent');
      expect(alarm).toMatchObject({ Namespace: METRIC_NAMESPACE, Statistic: 'Sum', Period: 3600, Threshold: threshold, ComparisonOperator: 'GreaterThanThreshold', EvaluationPeriods: 1 });
      expect(dimensionsOf(alarm)).toEqual({ service: 'captioning-dev', channel: 'sms' });
    }
  });

  it('login lockouts per hour: LoginLockouts summed over an hour, above the context threshold', () => {
    for (const [synthesized, threshold] of [[dev, DEFAULT_BUSINESS_ALARMS.loginLockoutsPerHour], [tuned, 7]] as const) {
      const alarm = alarmOn(synthesized, 'LoginLockouts');
      expect(alarm).toMatchObject({ Statistic: 'Sum', Period: 3600, Threshold: threshold, ComparisonOperator: 'GreaterThanThreshold' });
      expect(dimensionsOf(alarm)).toEqual({ service: 'captioning-dev' });
    }
  });

  it('Apple revocations abandoned: any one in an hour (a deleted account\'s Apple token left unrevoked)', () => {
    const alarm = alarmOn(dev, 'AppleRevocationsAbandoned');
    expect(alarm).toMatchObject({ Namespace: METRIC_NAMESPACE, Statistic: 'Sum', Period: 3600, Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', TreatMissingData: 'notBreaching' });
    expect(dimensionsOf(alarm)).toEqual({ service: 'captioning-dev' });
  });

  it('speech, per offered provider: a refused key at once, a run of failures in 15 minutes; none without providers', () => {
    const speech = synth({ SPEECH_PROVIDERS: 'azure,deepgram' });
    for (const provider of ['azure', 'deepgram']) {
      const refused = businessAlarms(speech).find((alarm) => alarm.MetricName === 'SpeechKeysRefused' && JSON.stringify(alarm.Dimensions).includes(`"${provider}"`));
      expect(refused).toMatchObject({ Statistic: 'Sum', Period: 900, Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
      expect(dimensionsOf(refused)).toEqual({ service: 'captioning-dev', provider });
      const failing = businessAlarms(speech).find((alarm) => alarm.MetricName === 'SpeechProviderFailures' && JSON.stringify(alarm.Dimensions).includes(`"${provider}"`));
      expect(failing).toMatchObject({ Period: 900, Threshold: 20, ComparisonOperator: 'GreaterThanThreshold' });
    }
    expect(businessAlarms(dev).filter((alarm) => String(alarm.MetricName).startsWith('Speech'))).toEqual([]);
  });

  it('refresh token reuse: any one in 5 minutes', () => {
    const alarm = alarmOn(dev, 'RefreshTokenReuse');
    expect(alarm).toMatchObject({ Statistic: 'Sum', Period: 300, Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', TreatMissingData: 'notBreaching' });
  });

  it('delivery failure rate: failures over attempts of both channels, over 15 minutes, only with enough attempts', () => {
    const [alarm, ...others] = businessAlarms(dev).filter((candidate) => candidate.Metrics && JSON.stringify(candidate).includes('CodeDeliveryFailures'));
    expect(others).toEqual([]);
    expect(alarm).toMatchObject({ Threshold: DELIVERY_FAILURE_RATE_PERCENT, ComparisonOperator: 'GreaterThanThreshold', EvaluationPeriods: 1 });
    const queries: any[] = alarm!.Metrics;
    const returned = queries.filter((query) => query.ReturnData !== false);
    expect(returned).toHaveLength(1);
    expect(returned[0].Expression).toBe(`IF(attempts >= ${DELIVERY_FAILURE_MIN_ATTEMPTS}, 100 * failures / attempts, 0)`);
    const stats = queries.filter((query) => query.MetricStat).map((query) => query.MetricStat);
    for (const stat of stats) {
      expect(stat).toMatchObject({ Period: 900, Stat: 'Sum' });
      expect(stat.Metric.Namespace).toBe(METRIC_NAMESPACE);
    }
    const seen = stats.map((stat) => `${stat.Metric.MetricName} ${stat.Metric.Dimensions.find((d: any) => d.Name === 'channel').Value}`).sort();
    // Failures count in both the numerator and the attempts.
    expect(seen).toEqual(['CodeDeliveryFailures email', 'CodeDeliveryFailures email', 'CodeDeliveryFailures sms', 'CodeDeliveryFailures sms', 'CodesSent email', 'CodesSent sms']);
  });

  it('notify the alarm topic when one is given, and nothing otherwise', () => {
    for (const alarm of businessAlarms(tuned)) expect(alarm.AlarmActions, alarm.id).toEqual([TOPIC]);
    for (const alarm of businessAlarms(dev)) expect(alarm.AlarmActions, alarm.id).toBeUndefined();
  });

  it('select the metrics the functions publish: every function gets the same SERVICE_NAME', () => {
    for (const [, fn] of ofType(dev.resources, 'AWS::Lambda::Function').filter(([, f]) => f.Properties.Environment)) {
      expect(fn.Properties.Environment.Variables.SERVICE_NAME).toBe('captioning-dev');
    }
    expect(dimensionsOf(alarmOn(synth({ stage: 'prod', SES_FROM_ADDRESS: 'no-reply@example.com' }), 'RefreshTokenReuse'))).toEqual({ service: 'captioning-prod' });
  });

  it('refuse a threshold that is not a positive number', () => {
    expect(() => synth({ alarmSmsCodesPerHour: 'many' })).toThrow(/alarmSmsCodesPerHour/);
  });
});

describe('the dashboard', () => {
  const dev = synth();
  const [[dashboardId, dashboard]] = ofType(dev.resources, 'AWS::CloudWatch::Dashboard') as [[string, any]];
  // The body is a Fn::Join of JSON text and references: each reference becomes `@@<logical id>@@`.
  const parts: unknown[] = dashboard.Properties.DashboardBody['Fn::Join'][1];
  const parsed = JSON.parse(parts.map((part) => (typeof part === 'string' ? part : `@@${refOf(part)}@@`)).join(''));
  const body = JSON.stringify(parsed);

  it('is one, and its name is a stack output', () => {
    expect(ofType(dev.resources, 'AWS::CloudWatch::Dashboard')).toHaveLength(1);
    expect(refOf(dev.template.toJSON().Outputs.DashboardName.Value)).toBe(dashboardId);
  });

  it('shows the API: requests, p50/p99 latency, 4xx, 5xx, and per route from the request lines', () => {
    for (const metric of ['"Count"', '"Latency"', '"p50"', '"p99"', '"4XXError"', '"5XXError"']) expect(body, metric).toContain(metric);
    const perRoute = parsed.widgets.find((widget: any) => widget.type === 'log' && /by route/.test(widget.properties.query));
    expect(perRoute.properties.query).toMatch(/filter message = "request"[^]*pct\(durationMs, 50\)[^]*pct\(durationMs, 99\)[^]*is4xx[^]*is5xx[^]*by route/);
  });

  it('shows every function: errors, throttles, concurrency, init duration', () => {
    const functions = ofType(dev.resources, 'AWS::Lambda::Function').filter(([, fn]) => fn.Properties.Environment?.Variables?.TABLE_NAME);
    for (const metric of ['"Errors"', '"Throttles"', '"ConcurrentExecutions"', '@initDuration']) expect(body, metric).toContain(metric);
    for (const [id] of functions) expect(body, id).toContain(`@@${id}@@`);
  });

  it('shows the table: consumed capacity and throttles', () => {
    for (const metric of ['ConsumedReadCapacityUnits', 'ConsumedWriteCapacityUnits', 'ReadThrottleEvents', 'WriteThrottleEvents']) expect(body, metric).toContain(metric);
  });

  it('shows every business metric, and the alarms', () => {
    for (const name of Object.keys(METRICS)) expect(body, name).toContain(name);
    const alarms = ofType(dev.resources, 'AWS::CloudWatch::Alarm').map(([id]) => id);
    for (const id of alarms) expect(body, id).toContain(`@@${id}@@`);
  });
});

it('every stack stays clear of the CloudFormation resource limit with the alarms and the dashboard', () => {
  const synthesized = synth({ waf: true, alarmTopicArn: TOPIC });
  // The parent, the areas, and the live channel's stack.
  expect(synthesized.stacks.length).toBe(synthesized.stack.areas.length + 2);
  for (const template of synthesized.stacks) expect(Object.keys(template.json.Resources).length, template.stack.node.id).toBeLessThan(450);
  // Every alarm of every stack, the area stacks' error alarms included, notifies the topic.
  const alarms = synthesized.stacks.flatMap((template) => ofType(template.json.Resources, 'AWS::CloudWatch::Alarm'));
  expect(alarms).toHaveLength(ofType(synthesized.resources, 'AWS::CloudWatch::Alarm').length);
  for (const [id, alarm] of alarms) expect(alarm.Properties.AlarmActions, id).toEqual([TOPIC]);
});
