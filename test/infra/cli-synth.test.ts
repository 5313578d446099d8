import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/project-root';

/**
 * The commands of docs/deploying.md, run as the team runs them: through the CDK CLI (`npx cdk`,
 * which sets CDK_DEFAULT_REGION and the context itself), each `cdk deploy` as `cdk synth` (no
 * credentials here, and synth is where cdk-nag and the settings stop a deployment). Any exit but 0
 * fails. The commands are read out of the page's `sh` blocks, so the page cannot drift from what
 * works; each distinct command runs once (the prod stage's command is in the page twice), bundling
 * every function with esbuild as a deployment does (in the CLI's app process: infra/bundling/esbuild-code.ts).
 */
const DOC = join(PROJECT_ROOT, 'docs/deploying.md');

/** Every `npx cdk deploy` command of the page's `sh` blocks: continuation lines joined, comments cut. */
function deployCommands(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((match) => match[1]!);
  const commands = blocks.flatMap((block) =>
    block
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => line.startsWith('npx cdk deploy ')),
  );
  return [...new Set(commands.map((command) => command.replace(/\s+/g, ' ')))];
}

/** The run's own output: no error line from the CLI, CDK or a validation, whatever the exit code says. */
const ERROR_LINE = /^(?:ERROR\b|Error:|\[Error|.*Synthesis finished with errors)/m;

interface Run {
  code: number | null;
  output: string;
  outdir: string;
}

const outdirs: string[] = [];

/** Runs one command of the page through `sh`, as typed, with `deploy` as `synth` and the assembly in a fresh directory. */
function synthAsDocumented(command: string): Promise<Run> {
  const outdir = mkdtempSync(join(tmpdir(), 'cli-synth-'));
  outdirs.push(outdir);
  const synth = `${command.replace(/^npx cdk deploy /, 'npx cdk synth ')} --output ${outdir} --quiet`;
  // No AWS credentials or profile: what CI and a newcomer without an account have (the CLI then sets us-east-1).
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(AWS_|CDK_)/.test(name)));
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', synth], { cwd: PROJECT_ROOT, env: { ...env, AWS_EC2_METADATA_DISABLED: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output, outdir }));
  });
}

const commands = deployCommands(readFileSync(DOC, 'utf8'));

afterAll(() => {
  for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
});

describe('docs/deploying.md, run through the CDK CLI as `cdk synth`', () => {
  it('names a deployment of each stage (and the reading of the page finds them)', () => {
    expect(commands.some((command) => command.includes('-c stage=dev'))).toBe(true);
    expect(commands.some((command) => command.includes('-c stage=prod'))).toBe(true);
    expect(commands.every((command) => !command.includes("'...'")), 'a placeholder cannot be run').toBe(true);
  });

  it.each(commands)('%s', { timeout: 15 * 60_000 }, async (command) => {
    const { code, output, outdir } = await synthAsDocumented(command);
    expect(output, output).not.toMatch(ERROR_LINE);
    expect(code, output).toBe(0);
    const stage = /-c stage=(\w+)/.exec(command)![1]!;
    const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as { artifacts: Record<string, { type: string; environment?: string }> };
    // The CLI's own region, as a deployment without a configured region gets it.
    expect(manifest.artifacts[`CaptioningService-${stage}`]?.environment).toBe('aws://unknown-account/us-east-1');
    expect(existsSync(join(outdir, `CaptioningService-${stage}.template.json`))).toBe(true);
    // CDK's built-in validation of the templates against CloudFormation's own rules only warns (its
    // findings never fail a synthesis): here any finding does. A report lists only plugins with findings.
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as { pluginReports: unknown[] };
    expect(report.pluginReports, JSON.stringify(report.pluginReports, undefined, 2)).toEqual([]);
  });
});
