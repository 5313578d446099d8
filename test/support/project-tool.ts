import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../infra/project-root';

/** Runs one of the project's own tools (`node_modules/.bin/<bin>`) in the project root: its exit code and its output, stdout and stderr together. */
export function runProjectTool(bin: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(PROJECT_ROOT, 'node_modules/.bin', bin), args, { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** A whole-project tool's time on a busy two-core machine, with room. */
export const PROJECT_TOOL_TIMEOUT_MS = 10 * 60_000;
