import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/dynamodb-local';
import { copyProject, editCopy } from '../support/project-copy';

/**
 * `npm start` reloads the API when a source changes (issue 47, infra/local/api-supervisor.ts):
 * started as a contributor starts it, in a temporary copy of the project, a handler's answer is
 * changed there and the next request gets the new answer, while what the first process served
 * is still there: the account and its session (DynamoDB Local and the root secret kept) and the
 * code in the dev outbox.
 */
let copy: string;
let server: ChildProcess;
let base: string;
const output: string[] = [];

/** Waits until the server has printed a line matching `pattern` (at most `seconds`). */
async function printed(pattern: RegExp, seconds: number, from = 0): Promise<string> {
  const until = Date.now() + seconds * 1000;
  for (;;) {
    const line = output.slice(from).find((candidate) => pattern.test(candidate));
    if (line) return line;
    if (Date.now() > until || server.exitCode !== null) throw new Error(`npm start never printed ${pattern}:\n${output.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const post = async (path: string, body: unknown, token?: string) => {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};
const outbox = async (target: string) => (await (await fetch(`${base}/dev/outbox?target=${encodeURIComponent(target)}`)).json()) as { code: string }[];

beforeAll(async () => {
  copy = copyProject('watch');
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // Its own process group: DynamoDB Local (java) and the API process go with it.
  server = spawn(join(copy, 'node_modules/.bin/tsx'), ['infra/local/start.ts'], {
    cwd: copy,
    env: { ...process.env, PORT: String(port), STAND_INS_PORT: '0', LOCAL_WATCH: 'true', NODE_OPTIONS: '' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  server.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  await printed(/API listening on/, 120);
}, 180_000);

afterAll(async () => {
  if (server?.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    process.kill(-server.pid!, 'SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    if (server.exitCode === null) process.kill(-server.pid!, 'SIGKILL');
  }
  if (copy) rmSync(copy, { recursive: true, force: true });
}, 30_000);

describe('npm start, watching the sources', () => {
  it("a handler's new answer is served within seconds of its change, with the data, the session and the outbox still there", async () => {
    const target = `watch-${Date.now()}@example.com`;
    const sent = await post('/api/verify-code/send', { type: 'email', target });
    expect(sent.body.message).toBe('Verification code sent.');
    const [{ code }] = (await outbox(target)) as [{ code: string }];
    const signedIn = await post('/api/verify-code/verify', { target, verifyCode: code });
    expect(signedIn.status).toBe(200);

    const before = output.length;
    editCopy(copy, 'functions/verify-code/send.ts', "succeeded('Verification code sent.')", "succeeded('Verification code sent, reloaded.')");
    expect(await printed(/reloaded the API in [\d.]+ s \(functions\/verify-code\/send\.ts changed/, 60, before)).toBeTruthy();

    const again = await post('/api/verify-code/send', { type: 'email', target: `watch-other-${Date.now()}@example.com` });
    expect(again.body.message).toBe('Verification code sent, reloaded.');
    // The account and its session: DynamoDB Local's data and the root secret that signed the token.
    const me = await fetch(`${base}/api/users/me`, { headers: { authorization: `Bearer ${signedIn.body.token as string}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { email: string }).email).toBe(target);
    // The dev outbox's messages of the first process.
    expect((await outbox(target)).map((entry) => entry.code)).toContain(code);
    // One line said it, and nothing restarted DynamoDB Local.
    expect(output.slice(before).join('')).not.toMatch(/DynamoDB Local died/);
  }, 120_000);
});
