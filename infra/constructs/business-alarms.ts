import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, MathExpression, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { METRIC_NAMESPACE } from '../../shared/ports/metrics';
import type { MetricDimension, MetricName } from '../../shared/ports/metrics';

/** Above this share of failed code deliveries (percent, over 15 minutes) a provider is failing. */
export const DELIVERY_FAILURE_RATE_PERCENT = 5;
/** Fewer attempts than this in 15 minutes say nothing about a provider: one failure would be 100 %. */
export const DELIVERY_FAILURE_MIN_ATTEMPTS = 20;

export interface BusinessAlarmThresholds {
  /** SMS codes sent in one hour above which SMS pumping is suspected (CDK context `alarmSmsCodesPerHour`). */
  smsCodesPerHour: number;
  /** Login lockouts in one hour above which credential stuffing is suspected (`alarmLoginLockoutsPerHour`). */
  loginLockoutsPerHour: number;
  /** Accounts deleted or disabled by support in one hour above which a stolen support credential is suspected (`alarmAdminRemovalsPerHour`). */
  adminRemovalsPerHour: number;
  /** Social sign-ins refused in 15 minutes (a forged token, an unreachable provider) above which the spike alarm fires (`alarmSocialRefusalsPer15Minutes`). */
  socialRefusalsPer15Minutes: number;
}

/** A business metric of shared/ports/metrics.ts as CloudWatch has it: by the stage's `service`. */
export function businessMetric(
  serviceName: string,
  name: MetricName,
  options: { dimension?: [MetricDimension, string]; period?: Duration; label?: string } = {},
): Metric {
  return new Metric({
    namespace: METRIC_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: serviceName, ...(options.dimension ? { [options.dimension[0]]: options.dimension[1] } : {}) },
    statistic: 'Sum',
    period: options.period ?? Duration.minutes(5),
    ...(options.label ? { label: options.label } : {}),
  });
}

/** Speech provider failures (timeouts, 5xx, refused keys) in 15 minutes above which a provider is failing (docs/speech.md). */
export const SPEECH_PROVIDER_FAILURES_PER_15_MINUTES = 20;

export interface BusinessAlarmsProps {
  /** The `service` dimension the functions publish with (shared/config.ts SERVICE_NAME). */
  serviceName: string;
  /** The speech providers this deployment offers (SPEECH_PROVIDERS): an alarm pair each. */
  speechProviders?: readonly string[];
  thresholds: BusinessAlarmThresholds;
  alarmTopicArn?: string;
}

/**
 * Alarms on what the service does rather than on how its machinery fares: SMS pumping (the bill),
 * a failing delivery provider (nobody can sign in by code), a stolen refresh token,
 * credential stuffing, and an Apple token of a deleted account left unrevoked. What each means and what to do: docs/operating.md, "Alarms".
 */
export class BusinessAlarms extends Construct {
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: BusinessAlarmsProps) {
    super(scope, id);
    const { serviceName, thresholds } = props;
    const alarm = (alarmId: string, metric: IMetric, threshold: number, comparisonOperator: ComparisonOperator, description: string) => {
      const created = new Alarm(this, alarmId, {
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator,
        // No data means nothing happened: no codes, no reuse, no lockouts.
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      this.alarms.push(created);
      return created;
    };

    const hour = Duration.hours(1);
    alarm(
      'SmsCodesPerHour',
      businessMetric(serviceName, 'CodesSent', { dimension: ['channel', 'sms'], period: hour }),
      thresholds.smsCodesPerHour,
      ComparisonOperator.GREATER_THAN_THRESHOLD,
      `More than ${thresholds.smsCodesPerHour} SMS codes were sent in an hour: SMS pumping, or a launch (docs/operating.md)`,
    );

    const quarter = Duration.minutes(15);
    const byChannel = (name: MetricName, channel: string) => businessMetric(serviceName, name, { dimension: ['channel', channel], period: quarter });
    alarm(
      'CodeDeliveryFailureRate',
      new MathExpression({
        // FILL: a channel with no sends in the window has no data point, which would void the sum.
        expression: `IF(attempts >= ${DELIVERY_FAILURE_MIN_ATTEMPTS}, 100 * failures / attempts, 0)`,
        usingMetrics: {
          failures: new MathExpression({ expression: 'FILL(failedEmail, 0) + FILL(failedSms, 0)', usingMetrics: { failedEmail: byChannel('CodeDeliveryFailures', 'email'), failedSms: byChannel('CodeDeliveryFailures', 'sms') }, period: quarter }),
          attempts: new MathExpression({
            expression: 'FILL(sentEmail, 0) + FILL(sentSms, 0) + FILL(lostEmail, 0) + FILL(lostSms, 0)',
            usingMetrics: {
              sentEmail: byChannel('CodesSent', 'email'),
              sentSms: byChannel('CodesSent', 'sms'),
              lostEmail: byChannel('CodeDeliveryFailures', 'email'),
              lostSms: byChannel('CodeDeliveryFailures', 'sms'),
            },
            period: quarter,
          }),
        },
        period: quarter,
        label: 'Failed code deliveries, percent of attempts',
      }),
      DELIVERY_FAILURE_RATE_PERCENT,
      ComparisonOperator.GREATER_THAN_THRESHOLD,
      `More than ${DELIVERY_FAILURE_RATE_PERCENT}% of code deliveries failed in 15 minutes (at least ${DELIVERY_FAILURE_MIN_ATTEMPTS} attempts): SES or SNS is failing`,
    );

    alarm(
      'RefreshTokenReuse',
      businessMetric(serviceName, 'RefreshTokenReuse'),
      1,
      ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      'A spent refresh token was presented again: a copy of it exists (the session was ended)',
    );

    alarm(
      'LoginLockoutsPerHour',
      businessMetric(serviceName, 'LoginLockouts', { period: hour }),
      thresholds.loginLockoutsPerHour,
      ComparisonOperator.GREATER_THAN_THRESHOLD,
      `More than ${thresholds.loginLockoutsPerHour} password logins were locked in an hour: credential stuffing`,
    );

    alarm(
      'AdminRemovalsPerHour',
      businessMetric(serviceName, 'AdminAccountRemovals', { period: hour }),
      thresholds.adminRemovalsPerHour,
      ComparisonOperator.GREATER_THAN_THRESHOLD,
      `Support deleted or disabled more than ${thresholds.adminRemovalsPerHour} accounts in an hour: a stolen support credential, or a planned cleanup (docs/operating.md)`,
    );

    // Refusals a person cannot cause by mistake: forged or replayed tokens, and a provider that
    // cannot be reached. `link-required` (an e-mail of an existing account) is a person's path, not an attack.
    const refused = (reason: string) => businessMetric(serviceName, 'SocialSignInsRefused', { dimension: ['reason', reason], period: quarter });
    alarm(
      'SocialSignInsRefusedSpike',
      new MathExpression({
        expression: 'FILL(invalid, 0) + FILL(unavailable, 0)',
        usingMetrics: { invalid: refused('invalid-credential'), unavailable: refused('provider-unavailable') },
        period: quarter,
        label: 'Social sign-ins refused (invalid credential, provider unavailable)',
      }),
      thresholds.socialRefusalsPer15Minutes,
      ComparisonOperator.GREATER_THAN_THRESHOLD,
      `More than ${thresholds.socialRefusalsPer15Minutes} sign-ins with Apple, Google or WeChat were refused in 15 minutes: forged or replayed tokens, a misconfigured client id, or a provider unreachable (docs/operating.md)`,
    );

    alarm(
      'AppleRevocationsAbandoned',
      businessMetric(serviceName, 'AppleRevocationsAbandoned', { period: hour }),
      1,
      ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      "A deleted account's Apple token could not be revoked at Apple within the limit of days: App Store Review Guideline 5.1.1(v) (docs/operating.md)",
    );

    // Speech (issue 44, docs/speech.md), per offered provider: a refused key is the operator's to fix
    // at once (every person of that provider gets 503); a run of failures is the provider failing.
    for (const provider of props.speechProviders ?? []) {
      const name = provider[0]!.toUpperCase() + provider.slice(1);
      alarm(
        `SpeechKeysRefused${name}`,
        businessMetric(serviceName, 'SpeechKeysRefused', { dimension: ['provider', provider], period: quarter }),
        1,
        ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        `The speech provider ${provider} refused the service's key (or none is set): put the right key in the speech secret (docs/speech.md)`,
      );
      alarm(
        `SpeechProviderFailures${name}`,
        businessMetric(serviceName, 'SpeechProviderFailures', { dimension: ['provider', provider], period: quarter }),
        SPEECH_PROVIDER_FAILURES_PER_15_MINUTES,
        ComparisonOperator.GREATER_THAN_THRESHOLD,
        `More than ${SPEECH_PROVIDER_FAILURES_PER_15_MINUTES} credentials of ${provider} failed in 15 minutes (timeouts, 5xx): people are sent to the fallback providers (docs/speech.md)`,
      );
    }

    if (props.alarmTopicArn) {
      const action = new SnsAction(Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn));
      for (const created of this.alarms) created.addAlarmAction(action);
    }
  }
}
