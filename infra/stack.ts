import { CfnOutput, Duration, RemovalPolicy, Stack, Tags, Validations } from 'aws-cdk-lib';
import type { App, StackProps } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  Cors,
  EndpointType,
  IdentitySource,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RestApi,
  TokenAuthorizer,
} from 'aws-cdk-lib/aws-apigateway';
import type { CorsOptions, MethodDeploymentOptions } from 'aws-cdk-lib/aws-apigateway';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { CfnSamplingRule } from 'aws-cdk-lib/aws-xray';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import { TTL_ATTRIBUTE, tableDefinition } from '../shared/db/table';
import { AUTHORIZATION_HEADER_PATTERN } from '../shared/http/gateway-responses';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, anyOrigin } from '../shared/http/headers';
import { CODE_PATH_PREFIX, VERSION_PREFIX, authorizer, jobs, routeId, routes, versionedPaths } from '../shared/routes';
import type { JobDefinition, RouteDefinition } from '../shared/routes';
import { authorizerDefine } from './bundling/options';
import { CodeRateLimitWaf } from './constructs/code-rate-limit-waf';
import { addGatewayResponses } from './constructs/gateway-responses';
import { grantNeeds } from './constructs/grants';
import type { GrantTargets, Needs } from './constructs/grants';
import { BusinessAlarms } from './constructs/business-alarms';
import { ServiceDashboard } from './constructs/dashboard';
import { ACCESS_LOG_FORMAT, Operations } from './constructs/operations';
import {
  AUTHORIZER_MEMORY_MB,
  DEFAULT_TIMEOUT,
  ServiceFunction,
  constructIdOf,
} from './constructs/service-function';
import { JOBS_AREA, ServiceArea, areaConstructId, areaOf } from './constructs/service-area';
import { SupportPolicies } from './constructs/support-policies';
import type { DeployedRoute, ServiceAreaProps } from './constructs/service-area';
import { MaintenanceAnswer } from './constructs/maintenance-answer';
import { RealtimeArea } from './constructs/realtime-area';

export type { DeployedRoute };
import { ADMIN_SETTINGS, readStageSettings } from './stage-settings';
import type { StageSettings } from './stage-settings';

/** scrypt at the contract's parameters takes ~0.5 s on a full vCPU; a login may hash twice (upgrade). */
const PASSWORD_HASHING_TIMEOUT = Duration.seconds(15);

/**
 * Which API requests X-Ray traces (the functions follow the gateway's decision). X-Ray's default
 * rule also takes the first request of every second, which at 10 000 users traced 36 % of all
 * requests and was a fifth of the cost per user (npm run cost, docs/cost.md); 5 % of requests
 * is plenty to follow latency and errors. The cost model prices tracing with these figures.
 */
export const API_TRACE_SAMPLING = { reservoirPerSecond: 0, fixedRate: 0.05 } as const;

export interface ServiceStackProps extends StackProps {
  settings: StageSettings;
  /** The route table (shared/routes.ts) unless given: tests add routes to measure the headroom. */
  routes?: readonly RouteDefinition[];
  jobs?: readonly JobDefinition[];
}

/**
 * The whole service on AWS, built from the route table: one function per route on a REST API
 * (every `/api/...` path also under `/api/v1/...`), the TOKEN authorizer in front of every Bearer
 * route, the one table, the generated root secret, gateway responses in the contract's shape,
 * throttling, optional WAF, logs, tracing and alarms.
 *
 * The routes live in nested stacks, one per area of the API (identity, users, devices,
 * transcriptions, behavior, operations; the area comes from the path: infra/constructs/service-area.ts,
 * which also says why): each holds its functions, roles, log groups, error alarms, and its API
 * resources and methods, which belong to this stack's RestApi. This stack keeps what is shared or
 * one of a kind (API, deployment and stage, `/api` and `/api/v1`, authorizer, table, secret, WAF,
 * API and business alarms, dashboard), so its size does not grow with the routes.
 */
export class ServiceStack extends Stack {
  readonly api: RestApi;
  readonly table: Table;
  readonly rootSecret: Secret;
  /** Apple's private key and WeChat's app secrets, when Apple or WeChat is offered. */
  readonly providerSecret: Secret | undefined;
  /** The speech providers' keys (docs/speech.md), when Azure, Deepgram or Tencent is offered. */
  readonly speechSecret: Secret | undefined;
  /** The silent push's keys (docs/realtime.md#the-silent-push), with `-c silentPush=true`: read by the fan-out only. */
  readonly pushSecret: Secret | undefined;
  readonly authorizerFunction: ServiceFunction;
  readonly deployedRoutes: DeployedRoute[] = [];
  /** The nested stacks, one per area of the API. */
  readonly areas: ServiceArea[] = [];
  readonly jobFunctions: ServiceFunction[] = [];
  /** The live channel (docs/realtime.md): the WebSocket API and its functions, a nested stack of its own. */
  readonly realtime: RealtimeArea | undefined;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { settings } = props;

    this.table = serviceTable(this, settings);
    this.rootSecret = new Secret(this, 'RootSecret', {
      description: 'Root secret of the captioning service: token signing and code hashing keys are derived from it',
      // Long and alphanumeric: no quoting trouble anywhere, far above the 32 characters required.
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy: settings.removalPolicy,
    });
    Validations.of(this.rootSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotating the root secret signs every user out and voids every pending code; it is rotated deliberately (docs/deploying.md), not on a schedule',
    });

    // Apple's private key and WeChat's app secrets (docs/social-sign-in.md, "Deploying"): made
    // when Apple or WeChat is offered, with a placeholder the operator replaces with
    // {"applePrivateKey": "...", "wechatAppSecrets": {"<appid>": "<secret>"}}; never in a template.
    if (settings.providerSecret) {
      this.providerSecret = operatorSecret(this, 'ProviderSecret', settings, {
        description: "Sign in with Apple and WeChat: Apple's private key and WeChat's app secrets (JSON, put by the operator)",
        notRotated: "Apple's key and WeChat's secrets are issued by the providers' consoles and replaced there by the operator; Secrets Manager cannot rotate them",
      });
    }

    // The speech providers' keys (docs/speech.md, "Deploying"): a placeholder the operator replaces with
    // {"azureSpeechKey": "...", "deepgramApiKey": "...", "tencentSecretId": "...", "tencentSecretKey": "..."}.
    if (settings.speechSecret) {
      this.speechSecret = operatorSecret(this, 'SpeechSecret', settings, {
        description: 'Speech sessions: the speech providers\' keys (JSON, put by the operator); read by the speech functions only',
        notRotated: "The speech providers' keys are issued by their consoles and replaced there by the operator; Secrets Manager cannot rotate them",
      });
    }

    // The silent push's keys (docs/realtime.md#the-silent-push, "Setting it up"): a secret of their
    // own, so that only the function that sends can read them (not the sign-in functions that read
    // the provider secret); a placeholder the operator replaces with
    // {"apnsPrivateKey": "-----BEGIN PRIVATE KEY-----...", "fcmServiceAccount": {"project_id": ..., "client_email": ..., "private_key": ...}}.
    if (settings.push) {
      this.pushSecret = operatorSecret(this, 'PushSecret', settings, {
        description: "Silent push: APNs' signing key and FCM's service account (JSON, put by the operator); read by the live channel's fan-out only",
        notRotated: "APNs' key and FCM's service account key are issued by Apple's and Google's consoles and replaced there by the operator; Secrets Manager cannot rotate them",
      });
    }

    const targets: GrantTargets = {
      table: this.table,
      indexNames: indexNames(),
      secret: this.rootSecret,
      ...(this.providerSecret ? { providerSecret: this.providerSecret } : {}),
      ...(this.speechSecret ? { speechSecret: this.speechSecret } : {}),
      transcribe: settings.transcribe,
      ses: settings.ses,
    };
    let realtimeUrl: string | undefined;
    const functionEnvironment = (needs: Needs): Record<string, string> => ({
      ...Object.fromEntries(Object.entries(settings.environment).filter(([key]) => (needs as { auth?: string }).auth === 'iam' || !(ADMIN_SETTINGS as readonly string[]).includes(key))),
      // Apple's, Google's and WeChat's client ids and addresses: only where a route talks to them.
      ...(needs.providers ? settings.providerEnvironment : {}),
      TABLE_NAME: this.table.tableName,
      // The ARN only: the value is read at run time with the function's own permission.
      ...(needs.secret ? { JWT_SECRET_ARN: this.rootSecret.secretArn } : {}),
      ...(needs.providerSecret && this.providerSecret ? { SOCIAL_SECRET_ARN: this.providerSecret.secretArn } : {}),
      // The speech providers' addresses and the speech secret's ARN: only where a route issues credentials.
      ...(needs.speech ? settings.speechEnvironment : {}),
      ...(needs.speech && this.speechSecret ? { SPEECH_SECRET_ARN: this.speechSecret.secretArn } : {}),
      // The WebSocket address a ticket names: only where tickets are handed out.
      ...((needs as { realtimeTickets?: boolean }).realtimeTickets && realtimeUrl ? { REALTIME_URL: realtimeUrl } : {}),
    });
    const baseFunction = { logRetention: settings.logRetention, removalPolicy: settings.removalPolicy, logLevel: settings.config.LOG_LEVEL };

    // The authorizer only verifies and reads token versions: a write grant would be a mistake.
    if ((authorizer.table as string) !== 'read') throw new Error('The authorizer must have read-only table access');
    this.authorizerFunction = new ServiceFunction(this, 'Authorizer', {
      ...baseFunction,
      entry: authorizer.entry,
      description: 'TOKEN authorizer: verifies the Bearer JWT',
      memorySize: AUTHORIZER_MEMORY_MB,
      timeout: DEFAULT_TIMEOUT,
      environment: functionEnvironment(authorizer),
      define: authorizerDefine,
    });
    grantNeeds(this, 'authorizer', this.authorizerFunction.role, authorizer, targets);

    const accessLogs = new LogGroup(this, 'ApiAccessLogs', { retention: settings.logRetention, removalPolicy: settings.removalPolicy });
    const corsOrigins = settings.config.CORS_ORIGINS;
    const allRoutes: readonly RouteDefinition[] = props.routes ?? routes;
    const quietMethod: MethodDeploymentOptions = {
      loggingLevel: MethodLoggingLevel.ERROR,
      // Data tracing would log request bodies and headers: passwords, codes and tokens.
      dataTraceEnabled: false,
      metricsEnabled: false,
    };

    this.api = new RestApi(this, 'Api', {
      restApiName: `captioning-${settings.stage}`,
      description: `Captioning account service (${settings.stage})`,
      endpointTypes: [EndpointType.REGIONAL],
      // Access and execution logs need the account's API Gateway log role; kept when a stage goes,
      // because it is an account-wide setting other APIs may rely on.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: settings.stage,
        tracingEnabled: true,
        ...quietMethod,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.custom(ACCESS_LOG_FORMAT),
        throttlingRateLimit: settings.throttle.rateLimit,
        throttlingBurstLimit: settings.throttle.burstLimit,
        // In maintenance the routes' paths do not exist, and API Gateway refuses settings for them.
        methodOptions: Object.fromEntries(
          (settings.maintenance ? [] : allRoutes)
            .filter((route) => route.throttle !== undefined)
            .flatMap((route) => versionedPaths(route.path).map((path) => [`${path}/${route.method}`, route.throttle === 'admin' ? settings.adminThrottle : settings.strictThrottle] as const))
            .map(([key, limit]) => [key, { ...quietMethod, throttlingRateLimit: limit.rateLimit, throttlingBurstLimit: limit.burstLimit }]),
        ),
      },
    });
    // Execution logging (errors only) writes to this group; API Gateway would create it on its own,
    // outside the stack, without retention, and `cdk destroy` would leave it behind. Made here
    // first, with the stage's retention and removal policy, it is the stack's like every other.
    const executionLogs = new LogGroup(this, 'ApiExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${settings.stage}`,
      retention: settings.logRetention,
      removalPolicy: settings.removalPolicy,
    });
    this.api.deploymentStage.node.addDependency(executionLogs);

    // Preflight on the resources that serve routes only, not on every path prefix (/api, /api/auth ...).
    const preflight: CorsOptions = {
      allowOrigins: anyOrigin(corsOrigins) ? Cors.ALL_ORIGINS : [...corsOrigins],
      allowHeaders: CORS_ALLOWED_HEADERS.split(','),
      allowMethods: [...new Set(allRoutes.map((route) => route.method)), 'OPTIONS'],
      exposeHeaders: CORS_EXPOSED_HEADERS.split(','),
      maxAge: Duration.minutes(10),
    };
    addGatewayResponses(this.api, corsOrigins);

    // `/api` and `/api/v1` are shared by every area, so they are the parent's.
    const apiRoots = { '/api': this.api.root.resourceForPath('/api'), [VERSION_PREFIX]: this.api.root.resourceForPath(VERSION_PREFIX) };
    if (settings.maintenance) {
      // The first of the two deployments that move a stage made before the nested stacks: the
      // routes go (and with them the paths the area stacks would clash with), the table, secret,
      // authorizer function, API and stage stay, and every path answers 503 until the next deployment.
      const single = anyOrigin(corsOrigins) ? '*' : corsOrigins.length === 1 ? corsOrigins[0] : undefined;
      new MaintenanceAnswer(this, 'Maintenance', { roots: Object.values(apiRoots), ...(single ? { allowOrigin: single } : {}) });
    } else {
      this.realtime = new RealtimeArea(this, 'LiveChannel', {
        stageName: settings.stage,
        table: this.table,
        targets,
        functionEnvironment,
        baseFunction,
        throttle: settings.throttle,
        ...(settings.alarmTopicArn ? { alarmTopicArn: settings.alarmTopicArn } : {}),
        ...(this.pushSecret ? { push: { environment: settings.pushEnvironment, secret: this.pushSecret } } : {}),
      });
      realtimeUrl = this.realtime.url;
      this.addAreas(props, allRoutes, apiRoots, {
        api: this.api,
        stageName: settings.stage,
        authorizer: new TokenAuthorizer(this, 'TokenAuthorizer', {
          handler: this.authorizerFunction.function,
          identitySource: IdentitySource.header('Authorization'),
          validationRegex: AUTHORIZATION_HEADER_PATTERN,
          resultsCacheTtl: settings.authorizerCache,
        }),
        preflight,
        targets,
        functionEnvironment,
        baseFunction,
        passwordHashingTimeout: PASSWORD_HASHING_TIMEOUT,
        alarmTopicArn: settings.alarmTopicArn,
      });
    }
    // The support team's policies for the /admin routes (issue 37), with their ARNs as outputs. Kept
    // in maintenance too (they name the API's ARNs, not its methods): a policy replaced gets a new
    // ARN, and the roles and SSO permission sets it was attached to would lose it.
    new SupportPolicies(this, 'SupportPolicies', { api: this.api, stageName: settings.stage, routes: allRoutes });
    this.acknowledgeApiFindings();

    // Sampling rules are matched by service name across the account; this one names this API's stage only.
    new CfnSamplingRule(this, 'ApiTraceSampling', {
      samplingRule: {
        ruleName: `captioning-${settings.stage}-api`,
        priority: 100,
        reservoirSize: API_TRACE_SAMPLING.reservoirPerSecond,
        fixedRate: API_TRACE_SAMPLING.fixedRate,
        serviceName: `${this.api.restApiName}/${settings.stage}`,
        serviceType: 'AWS::ApiGateway::Stage',
        host: '*',
        httpMethod: '*',
        urlPath: '*',
        resourceArn: '*',
        version: 1,
      },
    });

    if (settings.waf) {
      const waf = new CodeRateLimitWaf(this, 'CodeRateLimit', {
        stage: this.api.deploymentStage,
        pathPrefix: CODE_PATH_PREFIX,
        requestsPer5MinutesPerIp: settings.waf.codeRequestsPer5MinutesPerIp,
        metricPrefix: `captioning-${settings.stage}-`,
        corsOrigins,
      });
      new CfnOutput(this, 'WebAclArn', { value: waf.webAcl.attrArn, description: 'WAF web ACL on the API stage' });
    } else {
      Validations.of(this.api.deploymentStage).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason:
          'WAF was turned off for this deployment (-c waf=false); the stage and per-method throttles and the per-target code limits still bound abuse',
      });
    }

    const operations = new Operations(this, 'Operations', {
      namespace: `CaptioningApi/${settings.stage}`,
      api: this.api,
      accessLogs,
      codeSenders: this.deployedRoutes.filter((deployed) => deployed.route.sender).map((deployed) => deployed.function),
      alarmTopicArn: settings.alarmTopicArn,
    });
    const business = new BusinessAlarms(this, 'BusinessAlarms', {
      serviceName: settings.config.SERVICE_NAME,
      speechProviders: settings.config.SPEECH_PROVIDERS,
      thresholds: settings.businessAlarms,
      alarmTopicArn: settings.alarmTopicArn,
    });
    const dashboard = new ServiceDashboard(this, 'Dashboard', {
      serviceName: settings.config.SERVICE_NAME,
      api: this.api,
      table: this.table,
      functions: [...this.deployedRoutes.map((deployed) => deployed.function), this.authorizerFunction, ...this.jobFunctions, ...Object.values(this.realtime?.functions ?? {})],
      alarms: [...operations.alarms, ...business.alarms, ...this.areas.flatMap((area) => area.alarms), ...(this.realtime?.alarms ?? [])],
    });
    new CfnOutput(this, 'DashboardName', { value: dashboard.dashboard.dashboardName, description: 'The CloudWatch dashboard of this stage' });

    new CfnOutput(this, 'ApiUrl', {
      value: this.api.url,
      description: 'Base URL: routes are under api/ (and api/v1/), e.g. <ApiUrl>api/health',
    });
    new CfnOutput(this, 'HealthUrl', { value: this.api.urlForPath('/api/health') });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'RootSecretArn', { value: this.rootSecret.secretArn, description: 'The ARN only; the value stays in Secrets Manager' });
    if (this.speechSecret) {
      new CfnOutput(this, 'SpeechSecretArn', { value: this.speechSecret.secretArn, description: "Put the speech providers' keys here (docs/speech.md)" });
    }
    if (this.realtime) new CfnOutput(this, 'RealtimeUrl', { value: this.realtime.url, description: 'The live channel\'s WebSocket address (tickets name it)' });
    if (this.providerSecret) {
      new CfnOutput(this, 'ProviderSecretArn', { value: this.providerSecret.secretArn, description: "Put Apple's private key and WeChat's app secrets here (docs/social-sign-in.md)" });
    }
    if (this.pushSecret) {
      new CfnOutput(this, 'PushSecretArn', { value: this.pushSecret.secretArn, description: "Put the silent push's keys here, APNs' key and FCM's service account (docs/realtime.md#the-silent-push)" });
    }
  }

  /** The routes, by area, each area a nested stack of its own (why: infra/constructs/service-area.ts). */
  private addAreas(
    props: ServiceStackProps,
    allRoutes: readonly RouteDefinition[],
    apiRoots: ServiceAreaProps['apiRoots'],
    shared: Omit<ServiceAreaProps, 'area' | 'routes' | 'jobs' | 'apiRoots'>,
  ): void {
    const seen = new Set<string>();
    for (const route of allRoutes) {
      const id = constructIdOf(route.method, route.path);
      if (seen.has(id)) throw new Error(`Two routes make the construct id ${id}: ${routeId(route)}`);
      seen.add(id);
    }
    const areaNames = [...new Set([...allRoutes.map((route) => areaOf(route.path)), ...(props.jobs ?? jobs).map(() => JOBS_AREA)])];
    for (const area of areaNames) {
      const serviceArea = new ServiceArea(this, areaConstructId(area), {
        ...shared,
        area,
        routes: allRoutes.filter((route) => areaOf(route.path) === area),
        jobs: area === JOBS_AREA ? (props.jobs ?? jobs) : [],
        apiRoots,
      });
      this.areas.push(serviceArea);
      this.deployedRoutes.push(...serviceArea.deployedRoutes);
      this.jobFunctions.push(...serviceArea.jobFunctions);
    }
  }

  /** Findings that hold for the API as a whole, each with its reason. */
  private acknowledgeApiFindings(): void {
    Validations.of(this.api).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'Requests are validated in every handler with zod (shared/http/endpoint.ts) so that errors carry the contract body and details; a gateway model would answer in another shape',
      },
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason: 'The account-level API Gateway logging role uses AmazonAPIGatewayPushToCloudWatchLogs, the policy AWS documents for it',
      },
    );
  }
}

/**
 * A secret whose value the operator puts (keys issued by an outside provider's console): made
 * with a placeholder, never a value in a template, and not rotated by Secrets Manager (cdk-nag
 * AwsSolutions-SMG4, answered with why).
 */
function operatorSecret(scope: Construct, id: string, settings: StageSettings, text: { description: string; notRotated: string }): Secret {
  const secret = new Secret(scope, id, {
    description: text.description,
    generateSecretString: { secretStringTemplate: '{}', generateStringKey: 'placeholder', passwordLength: 16, excludePunctuation: true },
    removalPolicy: settings.removalPolicy,
  });
  Validations.of(secret).acknowledge({ id: 'AwsSolutions-SMG4', reason: text.notRotated });
  return secret;
}

function attributeType(name: string): AttributeType {
  const definition = tableDefinition.AttributeDefinitions?.find((attribute) => attribute.AttributeName === name);
  switch (definition?.AttributeType) {
    case 'S':
      return AttributeType.STRING;
    case 'N':
      return AttributeType.NUMBER;
    case 'B':
      return AttributeType.BINARY;
    default:
      throw new Error(`tableDefinition has no attribute definition for ${name}`);
  }
}

function keyOf(schema: { AttributeName?: string; KeyType?: string }[] | undefined, keyType: 'HASH' | 'RANGE') {
  const name = schema?.find((key) => key.KeyType === keyType)?.AttributeName;
  return name === undefined ? undefined : { name, type: attributeType(name) };
}

function indexNames(): string[] {
  return [...(tableDefinition.LocalSecondaryIndexes ?? []), ...(tableDefinition.GlobalSecondaryIndexes ?? [])].map((index) => index.IndexName!);
}

/** The table as shared/db/table.ts defines it (the local server creates it from the same definition). */
function serviceTable(scope: Construct, settings: StageSettings): Table {
  if (tableDefinition.BillingMode !== 'PAY_PER_REQUEST') throw new Error('The service table is on-demand');
  const partitionKey = keyOf(tableDefinition.KeySchema, 'HASH');
  if (!partitionKey) throw new Error('tableDefinition has no partition key');
  const table = new Table(scope, 'Table', {
    partitionKey,
    sortKey: keyOf(tableDefinition.KeySchema, 'RANGE'),
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    timeToLiveAttribute: TTL_ATTRIBUTE,
    // Keys only: the live channel's fan-out needs to know which items changed, never what they hold (docs/realtime.md).
    stream: StreamViewType.KEYS_ONLY,
    deletionProtection: settings.deletionProtection,
    removalPolicy: settings.removalPolicy,
  });
  for (const index of tableDefinition.LocalSecondaryIndexes ?? []) {
    table.addLocalSecondaryIndex({
      indexName: index.IndexName!,
      sortKey: keyOf(index.KeySchema, 'RANGE')!,
      projectionType: projection(index.Projection?.ProjectionType),
      nonKeyAttributes: index.Projection?.NonKeyAttributes,
    });
  }
  for (const index of tableDefinition.GlobalSecondaryIndexes ?? []) {
    table.addGlobalSecondaryIndex({
      indexName: index.IndexName!,
      partitionKey: keyOf(index.KeySchema, 'HASH')!,
      sortKey: keyOf(index.KeySchema, 'RANGE'),
      projectionType: projection(index.Projection?.ProjectionType),
      nonKeyAttributes: index.Projection?.NonKeyAttributes,
    });
  }
  return table;
}

function projection(type: string | undefined): ProjectionType {
  if (type === 'KEYS_ONLY') return ProjectionType.KEYS_ONLY;
  if (type === 'INCLUDE') return ProjectionType.INCLUDE;
  return ProjectionType.ALL;
}

export const STACK_NAME_PREFIX = 'CaptioningService';

/** The app: one stack for the stage named in context, checked by cdk-nag's AWS Solutions rules. */
export function addServiceStack(app: App, tables: Pick<ServiceStackProps, 'routes' | 'jobs'> = {}): ServiceStack {
  const settings = readStageSettings(app.node);
  const stack = new ServiceStack(app, `${STACK_NAME_PREFIX}-${settings.stage}`, {
    ...tables,
    settings,
    description: `Captioning account service: API, functions, table and secret (${settings.stage})`,
    terminationProtection: settings.stage === 'prod',
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
  Tags.of(stack).add('service', 'captioning-account');
  Tags.of(stack).add('stage', settings.stage);
  // Unacknowledged findings fail the synthesis (and so the deployment).
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return stack;
}
