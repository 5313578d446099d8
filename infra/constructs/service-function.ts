import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { RemovalPolicy } from 'aws-cdk-lib';
import { PolicyDocument, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { AddToPrincipalPolicyResult, PolicyStatement, RoleProps } from 'aws-cdk-lib/aws-iam';
import { ApplicationLogLevel, Architecture, Function as LambdaFunction, LoggingFormat, Runtime, SystemLogLevel, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { BUNDLE_HANDLER, bundledCode } from '../bundling/esbuild-code';
import type { LogLevel as ServiceLogLevel } from '../../shared/logging/logger';

/**
 * The newest Node.js runtime this aws-cdk-lib knows (cdk-nag's AwsSolutions-L1 asks for the
 * latest). The code also runs on Node 20 locally, so nothing here depends on 24-only features.
 */
export const RUNTIME = Runtime.NODEJS_24_X;

/** scrypt at N=2^17, r=8 is CPU-bound: Lambda gives a full vCPU from 1769 MB. */
export const PASSWORD_HASHING_MEMORY_MB = 1769;
export const SMALL_MEMORY_MB = 256;
/** The authorizer runs before every uncached Bearer request: a bit more CPU makes its cold start shorter. */
export const AUTHORIZER_MEMORY_MB = 512;

/** A route's function memory: the stack sizes it with this, and the cost model (npm run cost) prices it. */
export const memoryMbOf = (route: { hashesPasswords: boolean }): number =>
  route.hashesPasswords ? PASSWORD_HASHING_MEMORY_MB : SMALL_MEMORY_MB;

/**
 * A role whose statements all live in one inline policy instead of a separate AWS::IAM::Policy
 * resource: one CloudFormation resource less per function (a stack holds at most 500), and the
 * function cannot start before its permissions exist.
 */
export class InlinePolicyRole extends Role {
  private readonly document: PolicyDocument;

  constructor(scope: Construct, id: string, props: Omit<RoleProps, 'inlinePolicies'>) {
    const document = new PolicyDocument();
    super(scope, id, { ...props, inlinePolicies: { permissions: document } });
    this.document = document;
  }

  override addToPrincipalPolicy(statement: PolicyStatement): AddToPrincipalPolicyResult {
    this.document.addStatements(statement);
    return { statementAdded: true, policyDependable: this };
  }
}

/**
 * Lambda drops JSON application logs below the function's application log level, INFO unless set:
 * it follows LOG_LEVEL, so `debug` in dev reaches CloudWatch. `silent` writes nothing anyway.
 */
const APPLICATION_LOG_LEVEL: Record<ServiceLogLevel, ApplicationLogLevel> = {
  debug: ApplicationLogLevel.DEBUG,
  info: ApplicationLogLevel.INFO,
  warn: ApplicationLogLevel.WARN,
  error: ApplicationLogLevel.ERROR,
  silent: ApplicationLogLevel.FATAL,
};

export interface ServiceFunctionProps {
  /** Handler source, relative to the repository root (a route table `entry`). */
  entry: string;
  description: string;
  memorySize: number;
  timeout: Duration;
  environment: Record<string, string>;
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
  /** The functions' LOG_LEVEL setting, which Lambda's log-level filter must let through. */
  logLevel: ServiceLogLevel;
  /** Why this role needs `Resource: *` statements, beyond X-Ray (for the cdk-nag record). */
  wildcardResourceReasons?: string[];
  /** esbuild conditions: the adapters a route does not need (`routeConditions` of infra/bundling/options.ts). */
  conditions?: string[];
  /** esbuild defines: the function's own route entry (`routeDefine` of infra/bundling/options.ts). */
  define?: Record<string, string>;
}

/**
 * One Lambda function as every function of the service is built: bundled locally with esbuild
 * (no Docker) into one minified ESM file with the AWS SDK inside (the runtime's copy is not
 * pinned to our version, and a bundled, tree-shaken SDK starts faster), arm64, X-Ray active,
 * JSON logs into a log group of its own with a retention, and a role of its own that starts
 * with nothing but writing to that log group. Grants are added by the caller from the route table.
 */
export class ServiceFunction extends Construct {
  readonly function: LambdaFunction;
  readonly role: InlinePolicyRole;
  readonly logGroup: LogGroup;
  readonly description: string;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.description = props.description;
    this.logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention, removalPolicy: props.removalPolicy });
    this.role = new InlinePolicyRole(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${props.description}: logs, and what its route table entry declares`,
    });
    // Instead of the AWS managed basic execution role: this log group only, no CreateLogGroup.
    this.logGroup.grantWrite(this.role);

    this.function = new LambdaFunction(this, 'Function', {
      // The options the benchmarks measure (infra/bundling/options.ts), so what ships is what was
      // measured: one minified ESM file, the AWS SDK inside, no source maps (they would mean
      // --enable-source-maps, which slows cold starts and every stack trace).
      code: bundledCode({ entry: props.entry, ...(props.conditions ? { conditions: props.conditions } : {}), ...(props.define ? { define: props.define } : {}) }),
      handler: BUNDLE_HANDLER,
      description: props.description,
      runtime: RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      role: this.role,
      environment: props.environment,
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      // Our logger already writes one JSON object per line; JSON format makes Lambda's own
      // START/END/REPORT lines JSON too, so Logs Insights queries one shape.
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: APPLICATION_LOG_LEVEL[props.logLevel],
      // START/END/REPORT lines (duration, memory, init) stay at INFO whatever the application level.
      systemLogLevelV2: SystemLogLevel.INFO,
    });

    // cdk-nag (AwsSolutions-IAM5): the statements on `*` of this role, and why each must be.
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: [
        'X-Ray PutTraceSegments/PutTelemetryRecords support no resource-level permissions (active tracing)',
        ...(props.wildcardResourceReasons ?? []),
      ].join('; '),
    });
  }
}

/** Makes a stable construct id from a route: `GET /api/transcriptions/{id}` -> `GetApiTranscriptionsById`. */
export function constructIdOf(method: string, path: string): string {
  const words = [method.toLowerCase(), ...path.split('/').filter(Boolean).map((part) => (part.startsWith('{') ? `by-${part.slice(1, -1)}` : part))];
  return words
    .flatMap((word) => word.split(/[^A-Za-z0-9]+/))
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');
}

/** Stack-scoped ARN of an SES identity (an address or a domain). */
export function sesIdentityArn(scope: Construct, identity: string): string {
  return Stack.of(scope).formatArn({ service: 'ses', resource: 'identity', resourceName: identity });
}

export const DEFAULT_TIMEOUT = Duration.seconds(10);
