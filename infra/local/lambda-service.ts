import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { PROJECT_ROOT } from '../project-root';
import type { DeployedFunction } from './deployed-functions';
import { LAMBDA_NODE_MAJOR, lambdaNodeBinary } from './lambda-node.mjs';

/**
 * Lambda, locally, for the deployed bundles (infra/local/deployed-functions.ts): one process on the
 * Lambda runtime's Node (infra/local/lambda-node.mjs) runs every function in containers of its own
 * (infra/local/lambda-runtime/), each with the environment Lambda gives it: its template's
 * variables, Lambda's own (function name, memory, region, log format and level, handler, task
 * root, TZ), fake execution-role credentials, and the stand-ins' endpoints as
 * `AWS_ENDPOINT_URL_<SERVICE>`, which the SDK's clients and the authorizer's signed reads honour.
 */
export interface LambdaService {
  /** Invokes a function as API Gateway or EventBridge does; a failed invocation throws its errorMessage. */
  invoke(key: string, event: unknown, options: { requestId: string; nowMs: number }): Promise<unknown>;
  close(): Promise<void>;
}

export interface LambdaEndpoints {
  dynamodb: string;
  secretsManager: string;
  ses: string;
  sns: string;
}

/** Credentials of the shape Lambda puts in a function's environment (an assumed role's); no AWS account takes them. */
export const LOCAL_EXECUTION_ROLE_CREDENTIALS = {
  AWS_ACCESS_KEY_ID: 'ASIALOCALEXECUTIONROLE',
  AWS_SECRET_ACCESS_KEY: 'local-execution-role-secret-access-key',
  AWS_SESSION_TOKEN: 'local-execution-role-session-token',
} as const;

/** A function's environment as Lambda makes it: its own variables, then the ones Lambda reserves. */
export function lambdaEnvironment(fn: DeployedFunction & { codeDirectory: string }, region: string, endpoints: LambdaEndpoints): Record<string, string> {
  return {
    ...fn.environment,
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    AWS_LAMBDA_FUNCTION_NAME: fn.name,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.name}`,
    AWS_LAMBDA_LOG_STREAM_NAME: `local/[$LATEST]${randomUUID().replace(/-/g, '')}`,
    ...(fn.logging.format ? { AWS_LAMBDA_LOG_FORMAT: fn.logging.format } : {}),
    ...(fn.logging.level ? { AWS_LAMBDA_LOG_LEVEL: fn.logging.level } : {}),
    _HANDLER: fn.handler,
    LAMBDA_TASK_ROOT: fn.codeDirectory,
    LAMBDA_RUNTIME_DIR: join(PROJECT_ROOT, 'infra', 'local', 'lambda-runtime'),
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
    PATH: '/usr/local/bin:/usr/bin:/bin',
    ...LOCAL_EXECUTION_ROLE_CREDENTIALS,
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoints.secretsManager,
    AWS_ENDPOINT_URL_SES: endpoints.ses,
    AWS_ENDPOINT_URL_SNS: endpoints.sns,
  };
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: { errorType: string; errorMessage: string } };

export async function startLambdaService(
  functions: readonly DeployedFunction[],
  options: { region: string; endpoints: LambdaEndpoints; output: (line: string) => void },
): Promise<LambdaService> {
  const wrong = functions.find((fn) => fn.runtime !== `nodejs${LAMBDA_NODE_MAJOR}.x`);
  if (wrong) throw new Error(`${wrong.key} runs on ${wrong.runtime}, but infra/lambda-node locks Node ${LAMBDA_NODE_MAJOR}: update its package.json`);
  const unbuilt = functions.find((fn) => !fn.codeDirectory);
  if (unbuilt) throw new Error(`${unbuilt.key} has no bundle`);

  const host: ChildProcess = fork(join(PROJECT_ROOT, 'infra', 'local', 'lambda-runtime', 'host.mjs'), [], {
    execPath: lambdaNodeBinary(),
    // Not this process's loader flags (tsx): the bundles are plain JavaScript, run as Lambda runs them.
    execArgv: [],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TZ: ':UTC', LANG: 'en_US.UTF-8' },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  // The functions' stdout and stderr, line by line: what Lambda's log agent reads.
  for (const stream of [host.stdout, host.stderr] as Readable[]) createInterface({ input: stream }).on('line', options.output);
  const pending = new Map<string, { resolve: (outcome: Outcome) => void }>();
  let exited: Error | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    host.once('error', reject);
    host.on('message', (message: { type: string; id?: string } & Partial<Outcome>) => {
      if (message.type === 'ready') resolve();
      if (message.type === 'result' && message.id) {
        pending.get(message.id)?.resolve(message as Outcome);
        pending.delete(message.id);
      }
    });
    host.once('exit', (code) => {
      exited = new Error(`The local Lambda service exited (${code})`);
      reject(exited);
      for (const call of pending.values()) call.resolve({ ok: false, error: { errorType: 'Runtime.Exit', errorMessage: exited.message } });
      pending.clear();
    });
  });
  host.send({
    type: 'functions',
    functions: functions.map((fn) => ({
      name: fn.key,
      codeDirectory: fn.codeDirectory,
      handler: fn.handler,
      environment: lambdaEnvironment(fn as DeployedFunction & { codeDirectory: string }, options.region, options.endpoints),
    })),
  });
  await ready;
  const byKey = new Map(functions.map((fn) => [fn.key, fn]));

  return {
    async invoke(key, event, { requestId, nowMs }) {
      if (exited) throw exited;
      const fn = byKey.get(key);
      if (!fn) throw new Error(`No deployed function ${key}`);
      const context = { awsRequestId: requestId, timeoutMs: fn.timeoutSeconds * 1000, invokedFunctionArn: `arn:aws:lambda:${options.region}:000000000000:function:${fn.name}` };
      const id = randomUUID();
      const outcome = await new Promise<Outcome>((resolve) => {
        pending.set(id, { resolve });
        host.send({ type: 'invoke', id, name: key, event, nowMs, context });
      });
      if (outcome.ok) return outcome.value;
      throw Object.assign(new Error(outcome.error.errorMessage), { name: outcome.error.errorType });
    },
    close: async () => {
      if (exited) return;
      const gone = new Promise<void>((resolve) => host.once('exit', () => resolve()));
      host.send({ type: 'stop' });
      await gone;
    },
  };
}
