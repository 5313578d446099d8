import { Aws, Duration, NestedStack, Validations } from 'aws-cdk-lib';
import type { NestedStackProps } from 'aws-cdk-lib';
import { AuthorizationType, Integration, IntegrationType, Resource } from 'aws-cdk-lib/aws-apigateway';
import type { CorsOptions, IAuthorizer, IResource, Method, RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { VERSION_PREFIX, routeId } from '../../shared/routes';
import type { JobDefinition, RouteDefinition } from '../../shared/routes';
import { routeConditions, routeDefine } from '../bundling/options';
import { SMS_WILDCARD_REASON, TRANSCRIBE_WILDCARD_REASON, grantNeeds, protectAuditTrail } from './grants';
import type { GrantTargets, Needs } from './grants';
import { FunctionErrorAlarms } from './operations';
import { DEFAULT_TIMEOUT, SMALL_MEMORY_MB, ServiceFunction, constructIdOf, memoryMbOf } from './service-function';
import type { ServiceFunctionProps } from './service-function';

/**
 * Why nested stacks, one per area of the API (measured with the prod settings, WAF and an alarm
 * topic): the single stack held 411 resources for 36 routes, about 9 to 11 per route (function,
 * role with its inline policy, log group, invoke permission, error alarm, two methods and, for a
 * new path, two resources and two CORS preflight methods). CloudFormation's limit is 500, so the
 * 8 to 10 routes being added next would have reached it. Fewer resources per route was measured
 * too: every per-route resource left is required by "one function per operation, least privilege
 * per function, every alarm" (the policy is already inline in the role, one permission already
 * covers both paths), so at best a few per route would go and the limit would come back a dozen
 * routes later. Nested stacks (each its own 500-resource template) make the parent's size
 * independent of the number of routes: the parent keeps the API, its stage and deployment, the
 * authorizer, the table, the secret, WAF, the API alarms and the dashboard; each area stack holds
 * its routes' functions, roles, log groups, permissions, error alarms, API resources and methods.
 * test/infra/stack.test.ts guards every stack and shows that 30 more routes in a single area fit.
 */

/**
 * Areas by a path's first segment under /api. The segments of one concern share an area; any other
 * segment is an area of its own, so a new route needs no edit here: `/api/search/...` would get a
 * `Search` stack by itself.
 */
const AREA_OF_SEGMENT: Readonly<Record<string, string>> = {
  'verify-code': 'identity',
  auth: 'identity',
  health: 'operations',
  'openapi.json': 'operations',
};

/** The area that scheduled jobs belong to (they have no path). */
export const JOBS_AREA = 'operations';

/** The area of the support team's `/admin` API (issue 37): a nested stack of its own. */
export const ADMIN_AREA = 'admin';

/** The top segment of an API path: `/api/users/me` -> `users`. */
export function topSegmentOf(path: string): string {
  const [prefix, segment] = path.split('/').filter(Boolean);
  if (prefix === ADMIN_AREA && segment) return ADMIN_AREA;
  if (prefix !== 'api' || !segment || `/api/${segment}` === VERSION_PREFIX) throw new Error(`Route path ${path} is not under /api/<area>/`);
  return segment;
}

/** The area (nested stack) a route lands in, from its path alone. */
export function areaOf(path: string): string {
  const segment = topSegmentOf(path);
  return Object.hasOwn(AREA_OF_SEGMENT, segment) ? AREA_OF_SEGMENT[segment]! : segment;
}

/** The construct id of an area's stack: `identity` -> `IdentityArea`, `sign-in` -> `SignInArea`. */
export const areaConstructId = (area: string): string => `${constructIdOf('', area)}Area`;

/** Function and API Gateway methods of one route, for tests and outputs. */
export interface DeployedRoute {
  route: RouteDefinition;
  function: ServiceFunction;
  methods: Method[];
}

/** What every nested stack of functions takes from the parent: grants, settings, the functions' defaults, the alarm topic. */
export interface FunctionAreaProps extends NestedStackProps {
  targets: GrantTargets;
  functionEnvironment: (needs: Needs) => Record<string, string>;
  baseFunction: Pick<ServiceFunctionProps, 'logRetention' | 'removalPolicy' | 'logLevel'>;
  alarmTopicArn?: string;
}

export interface ServiceAreaProps extends FunctionAreaProps {
  area: string;
  routes: readonly RouteDefinition[];
  jobs: readonly JobDefinition[];
  api: RestApi;
  /** The API's `/api` and `/api/v1` resources (in the parent), under which the area's paths grow; `/admin` grows from the API's root. */
  apiRoots: { readonly [prefix: string]: IResource };
  /** The stage name as plain text: a reference to the parent's Stage would be a cycle (the stage's deployment waits for these methods). */
  stageName: string;
  authorizer: IAuthorizer;
  preflight: CorsOptions;
  passwordHashingTimeout: Duration;
}

/**
 * One area of the API as a nested stack: for each of its routes the function (with its role, log
 * group and grants), the invoke permission, the error alarm, and the API Gateway resources and
 * methods at both paths; for the operations area also the scheduled jobs. The RestApi, its
 * deployment and stage stay in the parent: the methods here belong to that API (its deployment
 * depends on this stack and is redeployed when a method changes).
 */
export class ServiceArea extends NestedStack {
  readonly deployedRoutes: DeployedRoute[] = [];
  readonly jobFunctions: ServiceFunction[] = [];
  readonly alarms: Alarm[];

  constructor(scope: Construct, id: string, props: ServiceAreaProps) {
    super(scope, id, { ...props, description: `Captioning service, area ${props.area}: its functions and API methods` });
    const topResources = new Map<string, IResource>();
    const withPreflight = new Set<IResource>();
    // `/api/users/me` -> the `users` resource under the parent's `/api`, then `me` under it here.
    const routeResource = (path: string, route: RouteDefinition): IResource => {
      if (route.auth === 'iam') {
        // `/admin/...` from the API's root; no CORS preflight: the admin API is for signed clients, not browsers.
        const admin = (topResources.get('/admin') ?? new Resource(this, constructIdOf('resource', '/admin'), { parent: props.api.root, pathPart: 'admin' }));
        topResources.set('/admin', admin);
        return admin.resourceForPath(path.slice('/admin/'.length));
      }
      const prefix = path.startsWith(`${VERSION_PREFIX}/`) ? VERSION_PREFIX : '/api';
      const [segment, ...rest] = path.slice(prefix.length + 1).split('/');
      const key = `${prefix}/${segment}`;
      let top = topResources.get(key);
      if (!top) {
        top = new Resource(this, constructIdOf('resource', key), { parent: props.apiRoots[prefix]!, pathPart: segment! });
        topResources.set(key, top);
      }
      const resource = rest.length > 0 ? top.resourceForPath(rest.join('/')) : top;
      if (!withPreflight.has(resource)) {
        resource.addCorsPreflight(props.preflight);
        withPreflight.add(resource);
      }
      return resource;
    };

    for (const route of props.routes) {
      if (areaOf(route.path) !== props.area) throw new Error(`${routeId(route)} belongs to area ${areaOf(route.path)}, not ${props.area}`);
      const fn = new ServiceFunction(this, constructIdOf(route.method, route.path), {
        ...props.baseFunction,
        entry: route.entry,
        description: routeId(route),
        memorySize: memoryMbOf(route),
        timeout: route.hashesPasswords ? props.passwordHashingTimeout : DEFAULT_TIMEOUT,
        environment: props.functionEnvironment(route),
        wildcardResourceReasons: [...(route.sender ? [SMS_WILDCARD_REASON] : []), ...(route.speech && props.targets.transcribe ? [TRANSCRIBE_WILDCARD_REASON] : [])],
        conditions: routeConditions(route),
        define: routeDefine(route),
      });
      grantNeeds(this, routeId(route), fn.role, route, props.targets);

      // Both paths of a route invoke the same function: one cold start pool, one set of alarms.
      // A Lambda proxy integration with one invoke permission per function, for its method on this
      // API's stage under /api/ (both paths), where LambdaIntegration adds one per method.
      const integration = new Integration({
        type: IntegrationType.AWS_PROXY,
        integrationHttpMethod: 'POST',
        uri: `arn:${Aws.PARTITION}:apigateway:${Aws.REGION}:lambda:path/2015-03-31/functions/${fn.function.functionArn}/invocations`,
      });
      fn.function.addPermission('ApiInvoke', {
        principal: new ServicePrincipal('apigateway.amazonaws.com'),
        sourceArn: props.api.arnForExecuteApi(route.method, route.auth === 'iam' ? '/admin/*' : '/api/*', props.stageName),
      });
      if (route.auth === 'iam') protectAuditTrail(fn.role, props.targets.table.tableArn);
      const paths = route.auth === 'iam' ? [route.path] : [route.path, `${VERSION_PREFIX}${route.path.slice('/api'.length)}`];
      const methods = paths.map((path) =>
        routeResource(path, route).addMethod(
          route.method,
          integration,
          route.auth === 'bearer'
            ? { authorizationType: AuthorizationType.CUSTOM, authorizer: props.authorizer }
            : route.auth === 'iam'
              ? { authorizationType: AuthorizationType.IAM }
              : { authorizationType: AuthorizationType.NONE },
        ),
      );
      for (const method of methods) {
        if (route.auth === 'none') {
          Validations.of(method).acknowledge({
            id: 'AwsSolutions-APIG4',
            reason: `${routeId(route)} is public by the contract: it is how a caller gets a token, or a health check`,
          });
        }
      }
      this.deployedRoutes.push({ route, function: fn, methods });
    }

    // Scheduled work from the same file as the routes: a function and an EventBridge rule each.
    for (const job of props.jobs) {
      const id = constructIdOf('job', job.name);
      const needs: Needs = { table: job.table, dynamodb: job.dynamodb, secret: job.secret === true, providers: job.providers === true, providerSecret: job.providerSecret === true };
      const fn = new ServiceFunction(this, id, {
        ...props.baseFunction,
        entry: job.entry,
        description: `job ${job.name} (${job.schedule})`,
        memorySize: SMALL_MEMORY_MB,
        timeout: Duration.seconds(job.timeoutSeconds),
        environment: props.functionEnvironment(needs),
      });
      grantNeeds(this, `job ${job.name}`, fn.role, needs, props.targets);
      new Rule(this, `${id}Schedule`, {
        description: `Runs job ${job.name}`,
        schedule: Schedule.expression(job.schedule),
        // A missed run is retried; the jobs are idempotent and the next run catches up anyway.
        targets: [new LambdaFunction(fn.function, { retryAttempts: 2 })],
      });
      this.jobFunctions.push(fn);
    }

    // The methods are this stack's: the API-wide finding is acknowledged where they are.
    if (props.routes.length > 0) {
      Validations.of(this).acknowledge({
        id: 'AwsSolutions-COG4',
        reason: "Authentication is the contract's own HS256 JWT checked by a Lambda TOKEN authorizer; there is no Cognito user pool",
      });
    }

    this.alarms = new FunctionErrorAlarms(this, 'Alarms', {
      functions: [...this.deployedRoutes.map((deployed) => deployed.function), ...this.jobFunctions],
      alarmTopicArn: props.alarmTopicArn,
    }).alarms;
  }
}
