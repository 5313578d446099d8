import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { AlarmStatusWidget, Dashboard, GraphWidget, LogQueryWidget, MathExpression, TextWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { Alarm, IMetric, IWidget , Metric} from 'aws-cdk-lib/aws-cloudwatch';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { METRIC_NAMESPACE } from '../../shared/ports/metrics';
import type { MetricDimension, MetricName } from '../../shared/ports/metrics';
import { businessMetric } from './business-alarms';
import type { ServiceFunction } from './service-function';

export interface ServiceDashboardProps {
  serviceName: string;
  api: RestApi;
  table: Table;
  /** Every function: routes, authorizer and jobs. */
  functions: ServiceFunction[];
  alarms: Alarm[];
}

const PERIOD = Duration.minutes(5);
const WIDE = 24;
const HALF = 12;
const THIRD = 8;

/**
 * One CloudWatch dashboard for the stage: the API (and each route, from the functions' request
 * lines), the functions, the table, and the business metrics, with the alarms on top. Per-route
 * figures come from Logs Insights rather than API Gateway's per-method metrics, which would add
 * four billed custom metrics per method.
 */
export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const { api, table, functions, serviceName } = props;
    const sum = (metric: Metric) => metric.with({ statistic: 'Sum', period: PERIOD });
    const perFunction = (make: (fn: ServiceFunction) => IMetric) => functions.map(make);
    const business = (title: string, metrics: IMetric[], width = THIRD) => new GraphWidget({ title, left: metrics, width, height: 6 });
    const countOf = (name: MetricName, dimension?: [MetricDimension, string]) =>
      businessMetric(serviceName, name, { ...(dimension ? { dimension } : {}), label: dimension?.[1] ?? name });
    const logGroups = functions.map((fn) => fn.logGroup.logGroupName);

    const widgets: IWidget[][] = [
      [new TextWidget({ markdown: `# ${serviceName}\nAlarms, what each means and what to do: docs/operating.md, "Alarms".`, width: WIDE, height: 2 })],
      [new AlarmStatusWidget({ title: 'Alarms', alarms: props.alarms, width: WIDE, height: 4 })],
      [
        new GraphWidget({ title: 'API requests', left: [sum(api.metricCount())], width: THIRD, height: 6 }),
        new GraphWidget({
          title: 'API latency (ms)',
          left: [api.metricLatency({ statistic: 'p50', period: PERIOD, label: 'p50' }), api.metricLatency({ statistic: 'p99', period: PERIOD, label: 'p99' })],
          width: THIRD,
          height: 6,
        }),
        new GraphWidget({
          title: 'API 4xx and 5xx',
          left: [api.metricClientError({ statistic: 'Sum', period: PERIOD, label: '4xx' }), api.metricServerError({ statistic: 'Sum', period: PERIOD, label: '5xx' })],
          width: THIRD,
          height: 6,
        }),
      ],
      [
        new LogQueryWidget({
          title: 'Per route: requests, p50 and p99 duration (ms), 4xx, 5xx (functions\' request lines)',
          logGroupNames: logGroups,
          queryLines: [
            'filter message = "request"',
            'fields status >= 400 and status < 500 as is4xx, status >= 500 as is5xx',
            'stats count(*) as requests, pct(durationMs, 50) as p50, pct(durationMs, 99) as p99, sum(is4xx) as c4xx, sum(is5xx) as c5xx by route',
            'sort requests desc',
          ],
          width: WIDE,
          height: 8,
        }),
      ],
      [
        new GraphWidget({ title: 'Lambda errors', left: perFunction((fn) => fn.function.metricErrors({ statistic: 'Sum', period: PERIOD })), width: THIRD, height: 6 }),
        new GraphWidget({ title: 'Lambda throttles', left: perFunction((fn) => fn.function.metricThrottles({ statistic: 'Sum', period: PERIOD })), width: THIRD, height: 6 }),
        new GraphWidget({
          title: 'Lambda concurrency (max)',
          left: perFunction((fn) => fn.function.metric('ConcurrentExecutions', { statistic: 'Maximum', period: PERIOD })),
          width: THIRD,
          height: 6,
        }),
      ],
      [
        new LogQueryWidget({
          title: 'Cold starts: init duration (ms) per function',
          logGroupNames: logGroups,
          queryLines: [
            'filter @type = "REPORT" and ispresent(@initDuration)',
            'stats count(*) as coldStarts, pct(@initDuration, 50) as p50, pct(@initDuration, 99) as p99 by @log',
            'sort p99 desc',
          ],
          width: HALF,
          height: 6,
        }),
        business('Cold starts (all functions)', [
          new MathExpression({
            expression: `SEARCH('{${METRIC_NAMESPACE},service} MetricName="ColdStart" service="${serviceName}"', 'Sum', ${PERIOD.toSeconds()})`,
            label: 'cold starts',
            period: PERIOD,
          }),
        ], HALF),
      ],
      [
        new GraphWidget({
          title: 'DynamoDB consumed capacity',
          left: [table.metricConsumedReadCapacityUnits({ statistic: 'Sum', period: PERIOD, label: 'read' }), table.metricConsumedWriteCapacityUnits({ statistic: 'Sum', period: PERIOD, label: 'write' })],
          width: HALF,
          height: 6,
        }),
        new GraphWidget({
          title: 'DynamoDB throttles',
          left: [
            table.metric('ReadThrottleEvents', { statistic: 'Sum', period: PERIOD, label: 'read' }),
            table.metric('WriteThrottleEvents', { statistic: 'Sum', period: PERIOD, label: 'write' }),
          ],
          width: HALF,
          height: 6,
        }),
      ],
      [
        business('Codes sent', [countOf('CodesSent', ['channel', 'email']), countOf('CodesSent', ['channel', 'sms'])]),
        business('SMS codes by country calling code', [
          new MathExpression({
            expression: `SEARCH('{${METRIC_NAMESPACE},service,country} MetricName="SmsCodesSentByCountry" service="${serviceName}"', 'Sum', ${PERIOD.toSeconds()})`,
            label: 'country',
            period: PERIOD,
          }),
        ]),
        business('Code delivery failures', [countOf('CodeDeliveryFailures', ['channel', 'email']), countOf('CodeDeliveryFailures', ['channel', 'sms'])]),
      ],
      [
        business('Sign-ins', [countOf('SignIns', ['method', 'code']), countOf('SignIns', ['method', 'password']), countOf('SignIns', ['method', 'refresh'])]),
        business('Failed codes, lockouts, refresh reuse', [countOf('CodeVerificationsFailed'), countOf('LoginLockouts'), countOf('RefreshTokenReuse')]),
        business('Accounts, records, events', [countOf('AccountsCreated'), countOf('AccountsDeleted'), countOf('RecordsSaved'), countOf('EventsRecorded')]),
      ],
      [
        // Sign in with Apple, Google and WeChat (issue 38, docs/social-sign-in.md).
        business('Social sign-ins and passkeys', [
          countOf('SignIns', ['method', 'apple']),
          countOf('SignIns', ['method', 'google']),
          countOf('SignIns', ['method', 'wechat']),
          countOf('SignIns', ['method', 'passkey']),
        ]),
        business('Social sign-ins refused, by reason', [
          countOf('SocialSignInsRefused', ['reason', 'invalid-credential']),
          countOf('SocialSignInsRefused', ['reason', 'link-required']),
          countOf('SocialSignInsRefused', ['reason', 'provider-unavailable']),
        ]),
        business('Social identities linked; Apple tokens of deleted accounts revoked, abandoned', [
          new MathExpression({
            expression: `SEARCH('{${METRIC_NAMESPACE},service,method} MetricName="SocialIdentitiesLinked" service="${serviceName}"', 'Sum', ${PERIOD.toSeconds()})`,
            label: 'method',
            period: PERIOD,
          }),
          countOf('AppleTokensRevoked'),
          countOf('AppleRevocationsAbandoned'),
        ]),
      ],
      [
        // Speech sessions (issue 44, docs/speech.md): per provider, whatever providers appear.
        ...(['SpeechSecondsCharged', 'SpeechSessionsStarted', 'SpeechProviderFailures', 'SpeechKeysRefused', 'SpeechQuotaRefusals'] as const).map((name) =>
          business(`Speech: ${name.replace(/^Speech/, '').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()} by provider`, [
            new MathExpression({
              expression: `SEARCH('{${METRIC_NAMESPACE},service,provider} MetricName="${name}" service="${serviceName}"', 'Sum', ${PERIOD.toSeconds()})`,
              label: 'provider',
              period: PERIOD,
            }),
          ]),
        ),
      ],
      [
        // The support team's admin API (issue 37): per operation and per kind of caller, whatever values appear.
        business('Admin requests by operation', [
          new MathExpression({
            expression: `SEARCH('{${METRIC_NAMESPACE},service,operation} MetricName="AdminRequests" service="${serviceName}"', 'Sum', ${PERIOD.toSeconds()})`,
            label: 'operation',
            period: PERIOD,
          }),
        ]),
        business('Admin requests by caller kind, and accounts deleted or disabled by support', [
          new MathExpression({
            expression: `SEARCH('{${METRIC_NAMESPACE},service,actorKind} MetricName="AdminRequestsByActor" service="${serviceName}"', 'Sum', ${PERIOD.toSeconds()})`,
            label: 'caller',
            period: PERIOD,
          }),
          countOf('AdminAccountRemovals'),
        ]),
      ],
      [
        // The live channel (docs/realtime.md).
        business('Live channel: connections', [
          countOf('RealtimeConnectionsOpened'),
          countOf('RealtimeConnectionsRefused', ['reason', 'ticket']),
          countOf('RealtimeConnectionsRefused', ['reason', 'session-ended']),
          countOf('RealtimeSessionsClosed'),
        ]),
        business('Live channel: pokes and gone connections', [countOf('RealtimePokesSent'), countOf('RealtimeGoneConnections')]),
        // The silent push (docs/realtime.md#the-silent-push): sent, dead tokens removed and failures, by provider.
        business('Silent push: sent, dead tokens removed, failures by provider', [
          ...(['apns', 'fcm'] as const).flatMap((provider) => [
            businessMetric(serviceName, 'PushesSent', { dimension: ['provider', provider], label: `sent (${provider})` }),
            businessMetric(serviceName, 'PushTokensRemoved', { dimension: ['provider', provider], label: `dead tokens removed (${provider})` }),
            businessMetric(serviceName, 'PushFailures', { dimension: ['provider', provider], label: `failures (${provider})` }),
          ]),
        ]),
      ],
    ];

    this.dashboard = new Dashboard(this, 'Dashboard', { widgets, defaultInterval: Duration.hours(3) });
  }
}
