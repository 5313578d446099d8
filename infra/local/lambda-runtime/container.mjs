// One Lambda container of a deployed bundle (infra/local/lambda-runtime/host.mjs): imports the
// handler file of the function's `Handler` (`index.handler` -> index.mjs, export `handler`) on its
// first invocation (the cold start: module init, as Lambda's init phase) and calls the same handler
// for every invocation after, with a Lambda context. Plain JavaScript, on the Lambda runtime's Node.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';

const { codeDirectory, handler } = workerData;
const [file, exportName] = handler.split('.');
let loaded;

/**
 * Local mode moves time (a test's movable clock, `X-Dev-Now` of npm run seed); the gateway sends
 * its "now" with each invocation. Only when it is more than a second from this machine's clock is
 * Date shifted in this container, so that an unmoved server runs on the real clock untouched.
 */
const realNow = Date.now;
let offsetMs = 0;
let shifted = false;
function followClock(nowMs) {
  if (typeof nowMs !== 'number') return;
  const offset = nowMs - realNow();
  const moved = Math.abs(offset) >= 1000;
  if (!shifted && !moved) return;
  if (!shifted) {
    const RealDate = Date;
    class ShiftedDate extends RealDate {
      constructor(...args) {
        if (args.length === 0) super(realNow() + offsetMs);
        else super(...args);
      }
      static now() {
        return realNow() + offsetMs;
      }
    }
    globalThis.Date = ShiftedDate;
    shifted = true;
  }
  offsetMs = moved ? offset : 0;
}

function lambdaContext(context) {
  const deadline = Date.now() + context.timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    invokedFunctionArn: context.invokedFunctionArn,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: context.awsRequestId,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** What the Lambda runtime reports of a failed invocation. */
const failure = (error) => ({
  errorType: error instanceof Error ? error.name : typeof error,
  errorMessage: error instanceof Error ? error.message : String(error),
});

parentPort.on('message', async ({ id, event, context, nowMs }) => {
  let outcome;
  try {
    followClock(nowMs);
    loaded ??= import(pathToFileURL(join(codeDirectory, `${file}.mjs`)).href).then((module) => {
      const fn = module[exportName];
      if (typeof fn !== 'function') throw Object.assign(new Error(`${handler} is undefined or not exported`), { name: 'Runtime.HandlerNotFound' });
      return fn;
    });
    // A failed init is tried again on the next invocation, as Lambda does.
    const fn = await loaded.catch((error) => {
      loaded = undefined;
      throw error;
    });
    process.env._X_AMZN_TRACE_ID = `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${id.replace(/-/g, '').slice(0, 24)};Sampled=0`;
    outcome = { ok: true, value: await fn(event, lambdaContext(context)) };
  } catch (error) {
    outcome = { ok: false, error: failure(error) };
  }
  parentPort.postMessage({ id, outcome });
});
