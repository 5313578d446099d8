import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { join, relative } from 'node:path';
import { PROJECT_ROOT } from '../project-root';
import type { ApiProcessMessage, ApiProcessStart } from './api-process';
import type { OutboxEntry } from './dev-outbox';

/**
 * `npm start`'s reload (issue 47): the API runs in a process of its own (infra/local/api-process.ts),
 * started again when a source changes (the route table, a handler, shared code, the local server),
 * while this process keeps DynamoDB Local and its data, the provider stand-ins, the root secret and
 * the dev outbox's messages. One line says each reload and how long it took; a change that does
 * not start (a syntax error) is said with its error, and the next change tries again.
 */
export const WATCHED_DIRECTORIES = ['shared', 'functions', 'infra/local'];
/** Its own process, and what it composes: a change to these needs `npm start` again. */
const NOT_RELOADED = new Set(['infra/local/start.ts', 'infra/local/api-supervisor.ts']);

export interface SupervisedApi {
  url: string;
  close(): Promise<void>;
}

export async function superviseApi(start: Omit<ApiProcessStart, 'type' | 'outbox'>, log: (line: string) => void = console.log): Promise<SupervisedApi> {
  const outbox: OutboxEntry[] = [];
  let child: ChildProcess | undefined;
  let closing = false;

  /** Forks the API process and waits for it to listen (or to fail). */
  const launch = () =>
    new Promise<{ child: ChildProcess; url: string }>((resolve, reject) => {
      // The tsx loader this process runs under (npm start is `tsx infra/local/start.ts`) loads the child's TypeScript too.
      const execArgv = process.execArgv.some((arg) => arg.includes('tsx')) ? process.execArgv : ['--import', 'tsx'];
      const started = fork(join(PROJECT_ROOT, 'infra/local/api-process.ts'), [], { execArgv, stdio: 'inherit' });
      started.on('message', (message: ApiProcessMessage) => {
        if (message.type === 'outbox') outbox.push(message.entry);
        else if (message.type === 'ready') resolve({ child: started, url: message.url });
        else reject(new Error(message.message));
      });
      started.once('exit', (code) => reject(new Error(`the API process exited (${code ?? 'signal'}) before it listened`)));
      started.send({ type: 'start', ...start, outbox } satisfies ApiProcessStart);
    });

  const stopChild = (running: ChildProcess | undefined) =>
    new Promise<void>((resolve) => {
      if (!running || running.exitCode !== null || running.signalCode !== null) return resolve();
      const force = setTimeout(() => running.kill('SIGKILL'), 5_000);
      running.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      running.kill('SIGTERM');
    });

  const first = await launch();
  child = first.child;

  let pending: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  let reloading: Promise<void> = Promise.resolve();
  const reload = () => {
    const changed = [...new Set(pending)];
    pending = [];
    reloading = reloading.then(async () => {
      if (closing) return;
      const began = Date.now();
      await stopChild(child);
      child = undefined;
      try {
        child = (await launch()).child;
        log(`reloaded the API in ${((Date.now() - began) / 1000).toFixed(1)} s (${changed.slice(0, 3).join(', ')}${changed.length > 3 ? ', ...' : ''} changed; DynamoDB Local, its data, the outbox and the stand-ins kept)`);
      } catch (error) {
        log(`the API did not start after ${changed.join(', ')} changed: ${(error as Error).message}\n(fix it and save: the next change reloads)`);
      }
    });
  };

  const watchers: FSWatcher[] = WATCHED_DIRECTORIES.map((directory) =>
    watch(join(PROJECT_ROOT, directory), { recursive: true }, (_event, name) => {
      if (!name) return;
      const file = relative(PROJECT_ROOT, join(PROJECT_ROOT, directory, name.toString()));
      if (!/\.(ts|json)$/.test(file) || NOT_RELOADED.has(file)) return;
      pending.push(file);
      // An editor's save is several events, a checkout many files: one reload for them all.
      clearTimeout(timer);
      timer = setTimeout(reload, 150);
    }),
  );

  return {
    url: first.url,
    close: async () => {
      closing = true;
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
      await reloading;
      await stopChild(child);
    },
  };
}
