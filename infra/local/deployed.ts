import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayAuthorizerResult, APIGatewayProxyResult } from 'aws-lambda';
import type { ProviderSecrets } from '../../shared/ports/provider-secrets';
import type { SpeechKeys } from '../../shared/ports/speech';
import type { PushKeys } from '../../shared/ports/push';
import { PROJECT_ROOT } from '../project-root';
import { PROVIDER_SETTINGS, SERVICE_SETTINGS, SPEECH_SETTINGS } from '../stage-settings';
import { AUTHORIZER_KEY, jobKey, routeKey, synthesizeDeployment } from './deployed-functions';
import type { DeployedFunction, Deployment, LocalResources } from './deployed-functions';
import { startAwsStandIns } from './aws-stand-ins';
import type { DevMetrics } from './dev-metrics';
import type { DevOutbox } from './dev-outbox';
import type { MetricCount } from '../../shared/ports/metrics';
import { startLambdaService } from './lambda-service';
import type { FunctionSource } from './server';

/**
 * `npm run start:deployed`: the local gateway (infra/local/server.ts) in front of the bundles
 * `cdk synth` builds, run on the Lambda runtime's Node with the environment their templates give
 * them (infra/local/deployed-functions.ts, infra/local/lambda-service.ts), calling DynamoDB Local
 * and the stand-ins of Secrets Manager, SES and SNS (infra/local/aws-stand-ins.ts) where on AWS
 * they call AWS. docs/local-and-aws.md says what this covers and what still differs.
 */

/** The account of local ARNs. */
export const LOCAL_ACCOUNT = '000000000000';

/** Stand-in sender when none is configured: SES needs a From address to send e-mail codes. */
export const LOCAL_SES_FROM_ADDRESS = 'Captions <no-reply@example.com>';

/**
 * The CDK context of a local deployment: cdk.json's, as the CLI reads it, and the settings of the
 * local environment under the same names (`-c KEY=VALUE` takes the environment variables' names:
 * infra/stage-settings.ts), so the functions get through their templates what `npm start` reads
 * from its environment: the speech providers' addresses among them (the stand-ins' locally), which
 * the stack gives the speech functions only. Keys are no settings: they go into the secrets.
 */
export function deploymentContext(env: Record<string, string | undefined>): Record<string, string> {
  const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context?: Record<string, string> };
  const settings = Object.fromEntries(
    [...SERVICE_SETTINGS, ...PROVIDER_SETTINGS, ...SPEECH_SETTINGS].flatMap((key) => (env[key] !== undefined && env[key] !== '' ? [[key, env[key]!] as const] : [])),
  );
  return { ...cdkJson.context, SES_FROM_ADDRESS: LOCAL_SES_FROM_ADDRESS, ...settings };
}

/** Builds the bundles as `cdk synth` does (all of them: every route, the authorizer, the jobs). */
export function buildDeployment(context: Record<string, string>, local: LocalResources): Deployment {
  return synthesizeDeployment({ context, local, bundle: true });
}

export interface DeployedFunctions extends FunctionSource {
  /** Each function as served: its template's environment, resolved to the local stand-ins. */
  functions: ReadonlyMap<string, DeployedFunction>;
  close(): Promise<void>;
}

export interface DeployedFunctionsOptions {
  /** Bundles built by `buildDeployment`. */
  bundles: Deployment;
  /** Another deployment's settings over the same bundles: its templates are synthesized (without bundling) for the environments. */
  context?: Record<string, string>;
  local: LocalResources;
  dynamodbEndpoint: string;
  /** The values of the secrets the stack makes. */
  rootSecret: string;
  providerSecrets: ProviderSecrets;
  /** The speech providers' keys: the speech secret's JSON, as the operator puts it on AWS (docs/speech.md). */
  speechKeys: SpeechKeys;
  /** The silent push's keys: the push secret's JSON, as the operator puts it on AWS (docs/realtime.md#the-silent-push). */
  pushKeys?: PushKeys;
  outbox: DevOutbox;
  /** Where the business metrics the functions write as EMF lines are counted (GET /dev/metrics). */
  metrics: DevMetrics;
  /** The functions' other output lines (their JSON logs): this process's stdout, or each line to a function. */
  output: 'inherit' | ((line: string) => void);
}

/**
 * The counts of an EMF line (shared/adapters/powertools-metrics.ts) as the functions' metric sink
 * publishes them locally (no `service` dimension: it is the stage's); undefined for any other line.
 */
export function emfCounts(line: string): MetricCount[] | undefined {
  if (!line.startsWith('{') || !line.includes('"_aws"')) return undefined;
  let parsed: Record<string, unknown> & { _aws?: { CloudWatchMetrics?: { Dimensions?: string[][]; Metrics?: { Name: string }[] }[] } };
  try {
    parsed = JSON.parse(line) as typeof parsed;
  } catch {
    return undefined;
  }
  const directives = parsed._aws?.CloudWatchMetrics;
  if (!directives) return undefined;
  return directives.flatMap((directive) => {
    const names = (directive.Dimensions?.[0] ?? []).filter((name) => name !== 'service');
    const dimensions = Object.fromEntries(names.map((name) => [name, String(parsed[name])]));
    return (directive.Metrics ?? []).map(({ Name }) => ({ name: Name, dimensions, value: [parsed[Name]].flat().reduce<number>((sum, value) => sum + Number(value), 0) }));
  }) as MetricCount[];
}

export async function startDeployedFunctions(options: DeployedFunctionsOptions): Promise<DeployedFunctions> {
  const templates = options.context ? synthesizeDeployment({ context: options.context, local: options.local, bundle: false }) : options.bundles;
  if (templates !== options.bundles) templates.remove();
  const functions = new Map(
    [...templates.functions.values()].map((fn) => {
      const built = options.bundles.functions.get(fn.key);
      if (!built?.codeDirectory) throw new Error(`${fn.key} was not built: build the bundles again`);
      return [fn.key, { ...fn, codeDirectory: built.codeDirectory }] as const;
    }),
  );
  const { secrets } = templates;
  const standIns = await startAwsStandIns({
    secrets: () => ({
      [secrets.root]: options.rootSecret,
      ...(secrets.provider ? { [secrets.provider]: JSON.stringify(options.providerSecrets) } : {}),
      // The speech functions read their keys from the speech secret (SPEECH_SECRET_ARN), never from their environment.
      ...(secrets.speech ? { [secrets.speech]: JSON.stringify(options.speechKeys) } : {}),
      // The fan-out's keys from the push secret (PUSH_SECRET_ARN), made with -c silentPush=true.
      ...(secrets.push ? { [secrets.push]: JSON.stringify(options.pushKeys ?? {}) } : {}),
    }),
    outbox: options.outbox,
    dynamodbEndpoint: options.dynamodbEndpoint,
  });
  const service = await startLambdaService([...functions.values()], {
    region: options.local.region,
    endpoints: { dynamodb: standIns.dynamodbUrl, secretsManager: standIns.secretsManagerUrl, ses: standIns.sesUrl, sns: standIns.snsUrl },
    output: (line) => {
      const counts = emfCounts(line);
      if (counts) options.metrics.publish(counts);
      else if (options.output === 'inherit') process.stdout.write(`${line}\n`);
      else options.output(line);
    },
  }).catch(async (error: unknown) => {
    await standIns.close();
    throw error;
  });
  const invoker = (key: string) => {
    if (!functions.has(key)) throw new Error(`The synthesized stack has no function for ${key}`);
    return { key };
  };
  return {
    functions,
    route: async (route, context) => {
      const { key } = invoker(routeKey(route));
      return async (event, lambda) => (await service.invoke(key, event, { requestId: lambda.awsRequestId, nowMs: context.clock.now().getTime() })) as APIGatewayProxyResult;
    },
    authorizer: async (context) => {
      const { key } = invoker(AUTHORIZER_KEY);
      return async (event, lambda) => (await service.invoke(key, event, { requestId: lambda.awsRequestId, nowMs: context.clock.now().getTime() })) as APIGatewayAuthorizerResult;
    },
    job: async (job, context) => {
      const { key } = invoker(jobKey(job));
      return (event, lambda) => service.invoke(key, event, { requestId: lambda.awsRequestId, nowMs: context.clock.now().getTime() });
    },
    close: async () => {
      await service.close();
      await standIns.close();
    },
  };
}
