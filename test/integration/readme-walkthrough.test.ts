import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';

/** The README's curl walkthrough, run as written (bash, curl, node) against a local server. */
const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
const section = readme.split(/^## Walkthrough with curl$/m)[1]?.split(/^## /m)[0] ?? '';
const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1];

const missingTool = ['bash', 'curl'].find((tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0);
if (missingTool) console.error(`[readme-walkthrough] skipped: ${missingTool} is not installed`);

let api: LocalApi;
beforeAll(async () => {
  if (!missingTool) api = await startLocalApi();
});
afterAll(() => api?.close());

describe('the README walkthrough', () => {
  it('is there', () => {
    expect(script).toContain('curl');
  });

  it.skipIf(missingTool)('runs against a local server: code, sign-in, refresh, device, record, usage, stats, sessions', async () => {
    // Asynchronously: the server answering the script runs in this process.
    const run = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script!], { env: { ...process.env, BASE: api.url }, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const answers = run.stdout;
    expect(answers).toContain('{"code":0,"message":"Verification code sent."}');
    expect(answers).toMatch(/"mac":"3C:71:BF:4A:92:1E"/);
    expect(answers).toMatch(/"textLength":23,/);
    expect(answers).toMatch(/"totalUsage":1800,"dailyUsage":\[\{"date":"\d{4}-\d{2}-\d{2}","usage":1800\}\]/);
    expect(answers).toContain('{"loginCount":0,"events":[{"eventType":"subtitle_layout","count":1,"lastValue":"bottom"}]}');
    expect(answers).toMatch(/\[\{"sessionId":"[\w-]{22}","clientName":"Walkthrough phone","createdAt":"[^"]+","lastUsedAt":"[^"]+","current":true\}\]/);
    expect(answers).toContain('{"code":0,"message":"Session ended."}');
    expect(answers).toContain('{"code":401,"message":"The session has ended. Sign in again.","error":"SESSION_ENDED"}');
  });
});
