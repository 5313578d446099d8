import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../../infra/project-root';

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
