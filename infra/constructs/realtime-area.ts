import { Aws, Duration, NestedStack, Stack, Validations } from 'aws-cdk-lib';
import { WebSocketApi, WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import type { CfnStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
// cdk-nag's own rendering of a policy's resource into the text of its finding (as support-policies.ts).
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference.js';
import type { Construct } from 'constructs';
import { CHANGE_ENTRY_PREFIX, CONNECTION_PREFIX, PROFILE_SORT_KEY } from '../../shared/realtime/activity';
import { realtimeFunctions } from '../../shared/routes';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { RealtimeFunctionDefinition } from '../../shared/routes';
import type { Throttle } from '../stage-settings';
import { grantNeeds } from './grants';
import type { Needs } from './grants';
import { FunctionErrorAlarms } from './operations';
import type { FunctionAreaProps } from './service-area';
import { DEFAULT_TIMEOUT, SMALL_MEMORY_MB, ServiceFunction } from './service-function';

/** The fan-out's batch: up to this many stream records, gathered for at most this long (one poke per account per batch). */
export const FAN_OUT_BATCH_SIZE = 100;
export const FAN_OUT_BATCHING_WINDOW = Duration.seconds(0);
/** A failing batch is halved and retried this often, then its records go to the dead-letter queue: never retried forever. */
export const FAN_OUT_RETRY_ATTEMPTS = 3;

export interface RealtimeAreaProps extends FunctionAreaProps {
  stageName: string;
  /** The table, with its stream (keys only). */
  table: ITable;
  throttle: Throttle;
  /** The silent push (`-c silentPush=true`): the fan-out's settings and the push secret only it reads. */
  push?: { environment: Record<string, string>; secret: ISecret };
}

/**
 * The live channel on AWS (issue 45, docs/realtime.md), a nested stack of its own: API Gateway's
 * WebSocket API with its own throttled stage, the `$connect` REQUEST authorizer that spends the
 * ticket (the same `admitConnection` as the local server), one function for `$connect`,
 * `$disconnect` and the default route (ping), and the fan-out on the table's stream, filtered to
 * change-feed entries, profiles and removed connections, bisecting a failing batch and, after
 * its retries, sending it to a dead-letter queue with an alarm. Only the fan-out, which sends,
 * may use the management API (execute-api:ManageConnections).
 */
export class RealtimeArea extends NestedStack {
  readonly api: WebSocketApi;
  readonly stage: WebSocketStage;
  /** `wss://.../<stage>`: what a ticket's `url` names. */
  readonly url: string;
  readonly functions: Record<keyof typeof realtimeFunctions, ServiceFunction>;
  readonly deadLetterQueue: Queue;
  readonly alarms: Alarm[];

  constructor(scope: Construct, id: string, props: RealtimeAreaProps) {
    super(scope, id, { ...props, description: 'Captioning service, the live channel: WebSocket API, its functions and the stream fan-out' });
    const make = (name: keyof typeof realtimeFunctions, description: string, environment: Record<string, string> = {}) => {
      const definition: RealtimeFunctionDefinition = realtimeFunctions[name];
      const needs: Needs = { table: definition.table, dynamodb: definition.dynamodb, secret: false };
      const fn = new ServiceFunction(this, `${name[0]!.toUpperCase()}${name.slice(1)}`, {
        ...props.baseFunction,
        entry: definition.entry,
        description,
        memorySize: SMALL_MEMORY_MB,
        timeout: DEFAULT_TIMEOUT,
        environment: { ...props.functionEnvironment(needs), ...environment },
      });
      grantNeeds(this, `realtime ${name}`, fn.role, needs, props.targets);
      return fn;
    };
    const connectAuthorizer = make('connectAuthorizer', 'live channel: $connect authorizer (spends the ticket)');
    const connection = make('connection', 'live channel: $connect, $disconnect, ping');

    this.api = new WebSocketApi(this, 'WebSocketApi', {
      apiName: `captioning-live-${props.stageName}`,
      description: 'The live channel: pokes open apps to pull the change feed (docs/realtime.md)',
      connectRouteOptions: {
        integration: new WebSocketLambdaIntegration('ConnectIntegration', connection.function),
        authorizer: new WebSocketLambdaAuthorizer('Ticket', connectAuthorizer.function, { identitySource: ['route.request.querystring.ticket'] }),
      },
      disconnectRouteOptions: { integration: new WebSocketLambdaIntegration('DisconnectIntegration', connection.function) },
      defaultRouteOptions: { integration: new WebSocketLambdaIntegration('PingIntegration', connection.function), returnResponse: true },
    });
    const accessLogs = new LogGroup(this, 'WebSocketAccessLogs', { retention: props.baseFunction.logRetention, removalPolicy: props.baseFunction.removalPolicy });
    this.stage = new WebSocketStage(this, 'WebSocketStage', {
      webSocketApi: this.api,
      stageName: props.stageName,
      autoDeploy: true,
      throttle: { rateLimit: props.throttle.rateLimit, burstLimit: props.throttle.burstLimit },
    });
    (this.stage.node.defaultChild as CfnStage).accessLogSettings = {
      destinationArn: accessLogs.logGroupArn,
      format: JSON.stringify({ requestId: '$context.requestId', eventType: '$context.eventType', routeKey: '$context.routeKey', status: '$context.status', connectionId: '$context.connectionId', error: '$context.error.message', authorizerError: '$context.authorizer.error' }),
    };
    this.url = this.stage.url;
    const callbackUrl = this.stage.callbackUrl;

    const fanOut = make('fanOut', 'live channel: fan-out of the table stream (pokes, ended sessions)', {
      REALTIME_MANAGEMENT_URL: callbackUrl,
      // The silent push (docs/realtime.md#the-silent-push): its settings and the push secret's ARN, this function's alone.
      ...(props.push ? { ...props.push.environment, PUSH_SECRET_ARN: props.push.secret.secretArn } : {}),
    });
    // The push secret's read (APNs' key, FCM's service account): the only function that pushes.
    if (props.push) props.push.secret.grantRead(fanOut.role);
    // Only the function that sends: the connections of this API's stage, nothing else.
    const connections = `arn:${Aws.PARTITION}:execute-api:${Aws.REGION}:${Aws.ACCOUNT_ID}:${this.api.apiId}/${props.stageName}/*/@connections/*`;
    fanOut.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['execute-api:ManageConnections'], resources: [connections] }));
    Validations.of(fanOut.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${flattenCfnReference(Stack.of(this).resolve(connections))}]`,
      reason: 'A connection id is only known at run time: the management API on this API\'s stage, any of its connections (POST to send, DELETE to close)',
    });
    this.deadLetterQueue = new Queue(this, 'FanOutDeadLetters', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    Validations.of(this.deadLetterQueue).acknowledge({ id: 'AwsSolutions-SQS3', reason: 'This queue is the dead-letter queue of the fan-out\'s stream event source; it needs none of its own' });
    fanOut.function.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.LATEST,
        batchSize: FAN_OUT_BATCH_SIZE,
        maxBatchingWindow: FAN_OUT_BATCHING_WINDOW,
        bisectBatchOnError: true,
        retryAttempts: FAN_OUT_RETRY_ATTEMPTS,
        // A poke older than this helps nobody: the app pulls on its next connect anyway.
        maxRecordAge: Duration.hours(1),
        onFailure: new SqsDlq(this.deadLetterQueue),
        filters: [
          FilterCriteria.filter({ eventName: FilterRule.or('INSERT', 'MODIFY'), dynamodb: { Keys: { SK: { S: FilterRule.beginsWith(CHANGE_ENTRY_PREFIX) } } } }),
          FilterCriteria.filter({ dynamodb: { Keys: { SK: { S: FilterRule.isEqual(PROFILE_SORT_KEY) } } } }),
          FilterCriteria.filter({ eventName: FilterRule.isEqual('REMOVE'), dynamodb: { Keys: { SK: { S: FilterRule.beginsWith(CONNECTION_PREFIX) } } } }),
        ],
      }),
    );

    this.functions = { connectAuthorizer, connection, fanOut };
    const deadLetters = new Alarm(this, 'FanOutDeadLettersAlarm', {
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: 'The live channel\'s fan-out gave up on stream records (docs/operating.md): some pokes or session closes were not sent',
    });
    if (props.alarmTopicArn) deadLetters.addAlarmAction(new SnsAction(Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn)));
    this.alarms = [deadLetters, ...new FunctionErrorAlarms(this, 'LiveChannelAlarms', { functions: Object.values(this.functions), alarmTopicArn: props.alarmTopicArn }).alarms];
    Validations.of(this).acknowledge({ id: 'AwsSolutions-APIG4', reason: 'The WebSocket API\'s $connect is authorized by the ticket authorizer; $disconnect and the default route run on a connection it admitted' });
  }
}
