import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BuiltBundle } from './bundles';
import { median, pairedRatio, round, shuffled } from './stats';

/**
 * The part of a cold start our code decides: loading the bundle and running its top level, each
 * time in a fresh `node` process, against a floor bundle measured alternately with it (the
 * DynamoDB client alone for functions, an empty bundle for the authorizer).
 */
export interface ColdImportResult {
  function: string;
  medianMs: number;
  baselineMedianMs: number;
  /**
   * The median over rounds of (this import / the floor import next to it), not medianMs over
   * baselineMedianMs: see pairedRatio. The two agree on a quiet machine.
   */
  ratio: number;
}

/**
 * The same imports in CPU time (all threads of the process): what a busy machine cannot inflate.
 * `cpuRatio` is a median of paired ratios, like `ratio`.
 */
export interface ColdImportCpu {
  function: string;
  cpuMedianMs: number;
  baselineCpuMedianMs: number;
  cpuRatio: number;
}

interface Sample {
  wallMs: number;
  cpuMs: number;
}

/** What a Lambda function's environment holds at init (fake credentials: nothing is called). */
const LAMBDA_ENVIRONMENT: Record<string, string> = {
  AWS_REGION: 'us-east-1',
  AWS_DEFAULT_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  AWS_SESSION_TOKEN: 'IQoJb3JpZ2luX2VjEXAMPLE',
  // Set on Lambda: the wrapper then parses its settings and creates its clients during init.
  AWS_LAMBDA_FUNCTION_NAME: 'captions-bench',
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '256',
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
  TABLE_NAME: 'captions-bench',
  JWT_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:captions-root-AbCdEf',
  SES_FROM_ADDRESS: 'no-reply@example.com',
  LOG_LEVEL: 'info',
  // This machine runs Node 20; on Lambda (22+) the SDK has nothing to say about it.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

const PROBE = `const cpu = process.cpuUsage();
const started = performance.now();
await import(process.argv[2]);
const wall = performance.now() - started;
const used = process.cpuUsage(cpu);
process.stdout.write(JSON.stringify({ wallMs: wall, cpuMs: (used.user + used.system) / 1000 }));
`;

/**
 * Runs a probe script in a fresh `node` process with the Lambda-like environment, the given files
 * as its arguments (as file URLs), and returns the JSON it prints.
 */
export function runProbe<T>(probe: string, files: readonly string[], what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [probe, ...files.map((file) => pathToFileURL(file).href)], {
      env: { PATH: process.env.PATH ?? '', ...LAMBDA_ENVIRONMENT },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 || !out.startsWith('{')) reject(new Error(`${what} failed (exit ${code}): ${err || out}`));
      else resolve(JSON.parse(out) as T);
    });
  });
}

const importOnce = (probe: string, bundle: BuiltBundle): Promise<Sample> => runProbe<Sample>(probe, [bundle.file], `importing ${bundle.name}`);

/**
 * `runs` rounds. In each, the functions are taken in random order, two at a time, with a floor
 * import between the two: every function is imported right next to a floor import, so a
 * disturbance of the machine hits both sides of its ratio alike (and a round costs 1.5 imports
 * per function, not 2). The authorizer is compared with the empty bundle.
 */
export async function measureColdImports(
  functions: BuiltBundle[],
  floors: { dynamodb: BuiltBundle; empty: BuiltBundle },
  runs: number,
  onProgress?: (done: number, total: number) => void,
): Promise<{ results: ColdImportResult[]; cpu: ColdImportCpu[] }> {
  const probe = join(dirname(functions[0]!.file), 'cold-import-probe.mjs');
  writeFileSync(probe, PROBE);
  const samples = new Map(functions.map((bundle) => [bundle.name, { own: [] as Sample[], floor: [] as Sample[] }]));
  const measureGroup = async (members: BuiltBundle[], floor: BuiltBundle) => {
    // A single member goes before or after its floor at random; a pair has the floor between them.
    const [first, second] = members.length === 1 && Math.random() < 0.5 ? [undefined, members[0]] : shuffled(members);
    const ownSample = async (bundle: BuiltBundle | undefined) => {
      if (bundle) samples.get(bundle.name)!.own.push(await importOnce(probe, bundle));
    };
    await ownSample(first);
    const floorSample = await importOnce(probe, floor);
    for (const bundle of members) samples.get(bundle.name)!.floor.push(floorSample);
    await ownSample(second);
  };

  // One unmeasured import of each file first: the page cache then holds all of them.
  for (const bundle of [...functions, floors.dynamodb, floors.empty]) await importOnce(probe, bundle);
  for (let run = 0; run < runs; run++) {
    const groups: { members: BuiltBundle[]; floor: BuiltBundle }[] = [];
    for (const floor of ['dynamodb', 'empty'] as const) {
      const order = shuffled(functions.filter((bundle) => bundle.floor === floor));
      for (let index = 0; index < order.length; index += 2) groups.push({ members: order.slice(index, index + 2), floor: floors[floor] });
    }
    for (const group of shuffled(groups)) await measureGroup(group.members, group.floor);
    onProgress?.(run + 1, runs);
  }
  // own[i] and floor[i] of a function were taken in the same group, next to each other.
  const summary = (bundle: BuiltBundle, measure: keyof Sample) => {
    const { own, floor } = samples.get(bundle.name)!;
    const values = own.map((sample) => sample[measure]);
    const floors = floor.map((sample) => sample[measure]);
    return { median: round(median(values), 2), floorMedian: round(median(floors), 2), ratio: pairedRatio(values, floors) };
  };
  const results = functions.map((bundle) => {
    const wall = summary(bundle, 'wallMs');
    return { function: bundle.name, medianMs: wall.median, baselineMedianMs: wall.floorMedian, ratio: wall.ratio };
  });
  const cpu = functions.map((bundle) => {
    const time = summary(bundle, 'cpuMs');
    return { function: bundle.name, cpuMedianMs: time.median, baselineCpuMedianMs: time.floorMedian, cpuRatio: time.ratio };
  });
  return { results, cpu };
}
