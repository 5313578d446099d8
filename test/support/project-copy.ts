import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { inject } from 'vitest';
import { PROJECT_ROOT } from '../../infra/project-root';
import { OUTER_DYNAMODB_ENDPOINT } from './global-setup';

/**
 * A temporary copy of the project for tests that change its sources (the scaffold, the local
 * server's reload): its tracked files as they are in the working tree, with the installed
 * node_modules linked in. The caller removes it.
 */
export function copyProject(label: string): string {
  const target = mkdtempSync(join(tmpdir(), `${label}-`));
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(PROJECT_ROOT, file))) continue;
    mkdirSync(dirname(join(target, file)), { recursive: true });
    copyFileSync(join(PROJECT_ROOT, file), join(target, file));
  }
  for (const modules of ['node_modules', 'client/node_modules']) {
    if (existsSync(join(PROJECT_ROOT, modules))) symlinkSync(join(PROJECT_ROOT, modules), join(target, modules), 'dir');
  }
  return target;
}

/** Replaces `from` (which must be there) in a file of a copy. */
export function editCopy(copy: string, file: string, from: string | RegExp, to: string): void {
  const path = join(copy, file);
  const source = readFileSync(path, 'utf8');
  const next = source.replace(from, to);
  if (next === source) throw new Error(`${file}: no ${String(from)}`);
  writeFileSync(path, next);
}

/**
 * Runs a tool of the copy (`node_modules/.bin/<command>`) in the copy and answers its output; a
 * vitest run there uses this run's DynamoDB Local (test/support/global-setup.ts) instead of
 * starting one. Throws with the output when the tool exits non-zero.
 */
export function runInCopy(copy: string, command: string, args: string[]): string {
  return execFileSync(join(copy, 'node_modules/.bin', command), args, {
    cwd: copy,
    encoding: 'utf8',
    stdio: 'pipe',
    env: { ...process.env, NODE_OPTIONS: '', [OUTER_DYNAMODB_ENDPOINT]: inject('dynamoEndpoint') },
  });
}
