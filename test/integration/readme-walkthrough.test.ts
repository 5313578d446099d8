import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';

/**
 * The curl sessions of the documents, run as written (bash, curl, node) against a local server:
 * the README's first session and the whole walkthrough of docs/api.md.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const blockUnder = (file: string, heading: string, language = 'sh'): string | undefined => {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const section = text.split(new RegExp(`^## ${heading}$`, 'm'))[1]?.split(/^## /m)[0] ?? '';
  return new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(section)?.[1];
};
const shellBlockUnder = (file: string, heading: string) => blockUnder(file, heading);
const clientSession = blockUnder('README.md', 'A first session with the app client', 'ts');
const script = shellBlockUnder('docs/api.md', 'Walkthrough with curl');
const firstSession = shellBlockUnder('README.md', 'A first session with curl');
const searchAndExport = shellBlockUnder('README.md', 'Find what was said, and take it all');

const missingTool = ['bash', 'curl'].find((tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0);
if (missingTool) console.error(`[readme-walkthrough] skipped: ${missingTool} is not installed`);

let api: LocalApi;
beforeAll(async () => {
  if (!missingTool) api = await startLocalApi();
});
afterAll(() => api?.close());

const runAgainstLocalServer = async (block: string) => {
  // Asynchronously: the server answering the script runs in this process. --norc: Node's stdio pipes are
  // sockets, and a bash started with a socket on stdin and no SHLVL above takes itself for one run by
  // sshd and reads the system bashrc (Debian's fails under -u: 'PS1: unbound variable'), as a reader's shell would not.
  const run = await promisify(execFile)('bash', ['--norc', '-euo', 'pipefail', '-c', block], { env: { ...process.env, BASE: api.url }, encoding: 'utf8' });
  expect(run.stderr).toBe('');
  return run.stdout;
};

describe('the README first session', () => {
  it('is there, and short', () => {
    expect(firstSession).toContain('curl');
    expect(firstSession!.trim().split('\n').length).toBeLessThanOrEqual(15);
  });

  it.skipIf(missingTool)('runs against a local server: code from the outbox, sign-in, a record, usage', async () => {
    const answers = await runAgainstLocalServer(firstSession!);
    expect(answers).toContain('{"code":0,"message":"Verification code sent."}');
    expect(answers).toMatch(/"textLength":6,/);
    expect(answers).toMatch(/"totalUsage":60,"dailyUsage":\[\{"date":"\d{4}-\d{2}-\d{2}","usage":60\}\]/);
  });
});

describe('the README search and export, in the first session\'s shell', () => {
  it.skipIf(missingTool)('finds the record by a Chinese word and an English phrase, with a snippet, and exports it', async () => {
    // One answer a line: curl writes a newline after each of the block's answers.
    const block = searchAndExport!.replaceAll('curl -s ', "curl -s -w '\\n' ");
    const answers = await runAgainstLocalServer(`${firstSession!}\necho\n${block}`);
    const [search, exported] = answers.trim().split('\n').slice(-2).map((line) => JSON.parse(line) as unknown) as [
      { recordTitle: string; match: { field: string; snippet: string } }[],
      { profile: { email: string }; transcriptions: { recordTitle: string; text: string }[] },
    ];
    expect(search.map((record) => record.recordTitle)).toEqual(['Doctor']);
    expect(search[0]!.match).toEqual({ field: 'text', snippet: 'Take the dose at three pm. 明天的会议改到三点。' });
    expect(exported.profile.email).toMatch(/^first-\d+@example\.com$/);
    expect(exported.transcriptions.map((record) => record.recordTitle)).toEqual(['First note', 'Doctor']);
    expect(exported.transcriptions[1]!.text).toContain('明天的会议');
  });
});

describe('the README first session with the app client', () => {
  it('is there', () => {
    expect(clientSession).toContain("from '@captioning/client'");
  });

  it('runs as written against a local server, the package resolved to client/src', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'readme-client-'));
    try {
      const script = join(folder, 'first-session.mts');
      const source = clientSession!
        .replace("'@captioning/client'", JSON.stringify(pathToFileURL(join(ROOT, 'client', 'src', 'index.ts')).href))
        .replace("'http://localhost:8080'", JSON.stringify(api.url));
      writeFileSync(script, source);
      const run = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, encoding: 'utf8' });
      // The record saved through the outbox came back through the change feed at revision 1.
      expect(run.stdout.trim()).toMatch(/^first-\d+@example\.com 60 Hello\. bottom 1$/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('the walkthrough of docs/api.md', () => {
  it('is there', () => {
    expect(script).toContain('curl');
  });

  it.skipIf(missingTool)('runs against a local server: code, sign-in, refresh, device, record, usage, stats, sessions', async () => {
    const answers = await runAgainstLocalServer(script!);
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
