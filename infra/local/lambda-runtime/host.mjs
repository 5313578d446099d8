// `npm run start:deployed`'s Lambda service (infra/local/deployed-functions.ts): a process on the
// Lambda runtime's Node (infra/local/lambda-node.mjs) that runs the deployed bundles as Lambda does.
// Each function gets containers (worker threads, each with the function's own environment); a
// container serves one invocation at a time and is reused, and a new one starts (cold: the bundle
// is imported again) only when all of the function's containers are busy, as on Lambda.
// Plain JavaScript: it runs on Node 24 without the TypeScript tooling of the machine's Node.
import { Worker } from 'node:worker_threads';

/** @type {Map<string, { definition: any, idle: Worker[], all: Set<Worker> }>} */
const functions = new Map();
/** In-flight invocations by id: the container serving it, and how to answer the gateway. */
const inFlight = new Map();

function startContainer(name) {
  const fn = functions.get(name);
  const { codeDirectory, handler, environment } = fn.definition;
  const worker = new Worker(new URL('./container.mjs', import.meta.url), {
    workerData: { codeDirectory, handler },
    env: environment,
    // The function's stdout and stderr are the host's (the gateway shows or drops them).
    stdout: false,
    stderr: false,
  });
  fn.all.add(worker);
  worker.on('message', (message) => {
    const call = inFlight.get(message.id);
    if (!call) return;
    inFlight.delete(message.id);
    fn.idle.push(worker);
    process.send({ type: 'result', id: message.id, ...message.outcome });
  });
  // A container that dies (an uncaught error, process.exit) is gone; Lambda starts another.
  const gone = (error) => {
    fn.all.delete(worker);
    fn.idle = fn.idle.filter((candidate) => candidate !== worker);
    for (const [id, call] of inFlight) {
      if (call.worker !== worker) continue;
      inFlight.delete(id);
      const reason = error instanceof Error ? error : new Error(`Runtime exited with ${error}`);
      process.send({ type: 'result', id, ok: false, error: { errorType: 'Runtime.ExitError', errorMessage: reason.message } });
    }
  };
  worker.on('error', gone);
  worker.on('exit', gone);
  return worker;
}

process.on('message', (message) => {
  if (message.type === 'functions') {
    for (const definition of message.functions) functions.set(definition.name, { definition, idle: [], all: new Set() });
    process.send({ type: 'ready' });
    return;
  }
  if (message.type === 'invoke') {
    const fn = functions.get(message.name);
    if (!fn) {
      process.send({ type: 'result', id: message.id, ok: false, error: { errorType: 'ResourceNotFoundException', errorMessage: `No function ${message.name}` } });
      return;
    }
    const worker = fn.idle.pop() ?? startContainer(message.name);
    inFlight.set(message.id, { worker });
    worker.postMessage({ id: message.id, event: message.event, context: message.context, nowMs: message.nowMs });
    return;
  }
  if (message.type === 'stop') {
    const all = [...functions.values()].flatMap((fn) => [...fn.all]);
    void Promise.all(all.map((worker) => worker.terminate())).then(() => process.exit(0));
  }
});
// The gateway went away: nothing is left to answer.
process.on('disconnect', () => process.exit(0));
