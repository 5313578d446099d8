import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BuiltBundle } from './bundles';
import { median, ratio, round } from './stats';

/**
 * The part of a cold start our code decides: loading the bundle and running its top level, each
 * time in a fresh `node` process, against a floor bundle measured alternately with it (the
 * DynamoDB client alone for functions, an empty bundle for the authorizer).
 */
export interface ColdImportResult {
  function: string;
  medianMs: number;
  baselineMedianMs: number;
  ratio: number;
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

const PROBE = `const started = performance.now();
await import(process.argv[2]);
process.stdout.write(String(performance.now() - started));
`;

function importOnce(probe: string, bundle: BuiltBundle): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [probe, pathToFileURL(bundle.file).href], {
      env: { PATH: process.env.PATH ?? '', ...LAMBDA_ENVIRONMENT },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const value = Number(out);
      if (code !== 0 || !Number.isFinite(value)) reject(new Error(`importing ${bundle.name} failed (exit ${code}): ${err || out}`));
      else resolve(value);
    });
  });
}

/**
 * `runs` rounds; in each, every function is imported right next to its floor (in random order
 * within the pair), so a disturbance of the machine hits both sides of a ratio alike.
 */
export async function measureColdImports(
  functions: BuiltBundle[],
  floors: { dynamodb: BuiltBundle; empty: BuiltBundle },
  runs: number,
  onProgress?: (done: number, total: number) => void,
): Promise<ColdImportResult[]> {
  const probe = join(dirname(functions[0]!.file), 'cold-import-probe.mjs');
  writeFileSync(probe, PROBE);
  const floorOf = (bundle: BuiltBundle) => (bundle.kind === 'authorizer' ? floors.empty : floors.dynamodb);
  const samples = new Map(functions.map((bundle) => [bundle.name, { own: [] as number[], floor: [] as number[] }]));

  // One unmeasured import of each file first: the page cache then holds all of them.
  for (const bundle of [...functions, floors.dynamodb, floors.empty]) await importOnce(probe, bundle);
  for (let run = 0; run < runs; run++) {
    for (const bundle of functions) {
      const entry = samples.get(bundle.name)!;
      if (Math.random() < 0.5) {
        entry.own.push(await importOnce(probe, bundle));
        entry.floor.push(await importOnce(probe, floorOf(bundle)));
      } else {
        entry.floor.push(await importOnce(probe, floorOf(bundle)));
        entry.own.push(await importOnce(probe, bundle));
      }
    }
    onProgress?.(run + 1, runs);
  }
  return functions.map((bundle) => {
    const { own, floor } = samples.get(bundle.name)!;
    const ownMedian = median(own);
    const floorMedian = median(floor);
    return { function: bundle.name, medianMs: round(ownMedian, 2), baselineMedianMs: round(floorMedian, 2), ratio: ratio(ownMedian, floorMedian) };
  });
}
