import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { SMS_LIMIT_REACHED_LOG } from '../../shared/identity/verification-service';
import type { ServiceFunction } from './service-function';

/**
 * The API's access log line: one JSON object per request with its id. No source IP, user agent,
 * path values, query or token: only the route template, the outcome and the pseudonymous user id.
 * `status` is always set, so it goes in as a number for the metric filters; the rest are strings
 * (API Gateway writes `-` for a value it does not have).
 */
export const ACCESS_LOG_FORMAT = [
  '{"requestId":"$context.requestId"',
  '"time":"$context.requestTime"',
  '"method":"$context.httpMethod"',
  '"resource":"$context.resourcePath"',
  '"status":$context.status',
  '"responseLatency":"$context.responseLatency"',
  '"integrationStatus":"$context.integration.status"',
  '"integrationLatency":"$context.integration.latency"',
  '"errorType":"$context.error.responseType"',
  '"errorMessage":"$context.error.message"',
  '"authorizerStatus":"$context.authorizer.status"',
  '"authorizerLatency":"$context.authorizer.latency"',
  '"userId":"$context.authorizer.principalId"',
  '"wafStatus":"$context.waf.status"}',
].join(',');

/** Above this share of 5xx answers (in percent over 5 minutes, with enough traffic to judge) someone should look. */
export const SERVER_ERROR_RATE_PERCENT = 5;
export const SERVER_ERROR_MIN_REQUESTS = 20;
const SMS_LIMIT_METRIC = 'SmsLimitReached';

/** Throttled answers in 5 minutes: a client loop or an attack on the code endpoints. */
export const THROTTLED_REQUESTS_THRESHOLD = 50;

export interface OperationsProps {
  namespace: string;
  api: RestApi;
  accessLogs: ILogGroup;
  /** Functions that send codes: their `sms limit reached` log lines become the SmsLimitReached metric. */
  codeSenders: ServiceFunction[];
  alarmTopicArn?: string;
}

/**
 * The API's alarms an on-call person needs: 5xx rate, throttling, authorizer failures, the SMS
 * circuit breaker (each function's error alarm sits with the function: FunctionErrorAlarms). 429s and authorizer failures are counted from the access log, where
 * API Gateway records them precisely: its own metrics lump 429 into 4XXError, and a refused token
 * counts as an authorizer function "error" (it must throw "Unauthorized"), which is no fault.
 */
export class Operations extends Construct {
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    const period = Duration.minutes(5);
    const countMetric = (metricName: string, filterPattern: ReturnType<typeof FilterPattern.any>) =>
      new MetricFilter(this, `${metricName}Filter`, {
        logGroup: props.accessLogs,
        metricNamespace: props.namespace,
        metricName,
        filterPattern,
        metricValue: '1',
        defaultValue: 0,
      }).metric({ statistic: 'Sum', period });

    const alarm = (alarmId: string, metric: IMetric, threshold: number, description: string) => {
      const created = new Alarm(this, alarmId, {
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      this.alarms.push(created);
      return created;
    };

    alarm(
      'ServerErrorRate',
      new MathExpression({
        expression: `IF(requests >= ${SERVER_ERROR_MIN_REQUESTS}, 100 * errors / requests, 0)`,
        usingMetrics: {
          errors: props.api.metricServerError({ statistic: 'Sum', period }),
          requests: props.api.metricCount({ statistic: 'Sum', period }),
        },
        period,
        label: '5xx answers, percent of requests',
      }),
      SERVER_ERROR_RATE_PERCENT,
      `More than ${SERVER_ERROR_RATE_PERCENT}% of API requests answered 5xx in 5 minutes`,
    );

    alarm(
      'ThrottledRequests',
      countMetric('ThrottledRequests', FilterPattern.any(FilterPattern.numberValue('$.status', '=', 429))),
      THROTTLED_REQUESTS_THRESHOLD,
      `At least ${THROTTLED_REQUESTS_THRESHOLD} requests were throttled (429) in 5 minutes`,
    );

    alarm(
      'AuthorizerErrors',
      countMetric(
        'AuthorizerErrors',
        FilterPattern.any(
          FilterPattern.stringValue('$.errorType', '=', 'AUTHORIZER_FAILURE'),
          FilterPattern.stringValue('$.errorType', '=', 'AUTHORIZER_CONFIGURATION_ERROR'),
        ),
      ),
      1,
      'The authorizer failed (not a refused token): signed-in users get 500s',
    );

    // The SMS circuit breaker (SMS_MAX_PER_HOUR): every refused SMS send, as one metric over the senders.
    const smsLimitFilters = props.codeSenders.map(
      (fn) =>
        new MetricFilter(this, `${fn.node.id}SmsLimitFilter`, {
          logGroup: fn.logGroup,
          metricNamespace: props.namespace,
          metricName: SMS_LIMIT_METRIC,
          filterPattern: FilterPattern.stringValue('$.message', '=', SMS_LIMIT_REACHED_LOG),
          metricValue: '1',
          defaultValue: 0,
        }),
    );
    if (smsLimitFilters[0]) {
      alarm(
        'SmsLimitReached',
        smsLimitFilters[0].metric({ statistic: 'Sum', period }),
        1,
        'The SMS circuit breaker refused SMS codes: the hourly budget (SMS_MAX_PER_HOUR) is spent, by demand or by abuse',
      );
    }

    notify(this, this.alarms, props.alarmTopicArn);
  }
}

function notify(scope: Construct, alarms: Alarm[], alarmTopicArn: string | undefined): void {
  if (!alarmTopicArn) return;
  const action = new SnsAction(Topic.fromTopicArn(scope, 'AlarmTopic', alarmTopicArn));
  for (const created of alarms) created.addAlarmAction(action);
}

export interface FunctionErrorAlarmsProps {
  /** Route and job functions (not the authorizer: a refused token is a Lambda error there). */
  functions: ServiceFunction[];
  alarmTopicArn?: string;
}

/** One alarm per function on its Lambda errors, in the stack that holds the functions. */
export class FunctionErrorAlarms extends Construct {
  readonly alarms: Alarm[];

  constructor(scope: Construct, id: string, props: FunctionErrorAlarmsProps) {
    super(scope, id);
    const period = Duration.minutes(5);
    this.alarms = props.functions.map(
      (fn) =>
        new Alarm(this, `${fn.node.id}Errors`, {
          metric: fn.function.metricErrors({ statistic: 'Sum', period }),
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: TreatMissingData.NOT_BREACHING,
          alarmDescription: `${fn.description}: the function crashed or timed out (handled errors are answers, not Lambda errors)`,
        }),
    );
    notify(this, this.alarms, props.alarmTopicArn);
  }
}
