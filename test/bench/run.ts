import { writeFileSync } from 'node:fs';
import { rmSync } from 'node:fs';
import { writeSections } from '../../infra/tools/docs-sections';
import { dirname } from 'node:path';
import { LAMBDA_NODE_MAJOR } from '../../infra/bundling/options';
import { buildWithFloors, functionTargets, largestInputs } from './bundles';
import type { BuiltBundle } from './bundles';
import { measureColdImports } from './cold-import';
import type { ColdImportCpu, ColdImportResult } from './cold-import';
import { TYPICAL_ACCOUNT, readOperations, seedAccount } from './fixtures';
import { optionOf, progressLog, textTable } from './cli';
import { GOALS, KB, isIdentityBundle, isWebauthnBundle } from './goals';
import { startBench } from './harness';
import { measureDeletion } from './deletion';
import type { DeletionResult } from './deletion';
import { measureEnumeration, measureScrypt } from './identity';
import type { EnumerationResult } from './identity';
import { measureOverhead, measureThroughput, pairOperation } from './overhead';
import { REFRESH_OPERATION, pairRefresh } from './refresh';
import type { OverheadResult, PairedOperation, ThroughputResult } from './overhead';
import { READ_COST_OPERATIONS, measureReadCost } from './read-cost';
import type { ReadCostFloor, ReadCostResult } from './read-cost';

/**
 * `npm run bench [-- --json FILE] [-- --quick] [-- --no-write]`: bundles, cold import, handler
 * overhead, read cost, scrypt, throughput and login timing, each next to its floor measured in the
 * same run. `--quick` runs a few samples of everything (to check the benchmark itself, not to quote).
 * A full run writes what it prints into docs/performance.md (section `bench`) unless `--no-write`.
 * Everything runs on the Node.js that runs this script; `npm run bench:lambda-node` runs it on the
 * Lambda runtime's major version instead.
 */
interface Report {
  /** The Node.js version everything was measured on; beyond the shape. */
  node: string;
  /** `dataBytes`: the data modules (goals.ts `DATA_CEILINGS`), not code; beyond the shape. */
  bundles: { function: string; bytes: number; ownBytes: number; dataBytes: number }[];
  coldImport: ColdImportResult[];
  overhead: OverheadResult[];
  readCost: ReadCostResult[];
  scrypt: { medianMs: number };
  throughput: ThroughputResult[];
  enumeration: EnumerationResult;
  /** Account deletion: the request's time (bounded by its budget) and the whole purge per 10 000 items. */
  deletion: DeletionResult[];
}

const args = process.argv.slice(2);
const option = (name: string) => optionOf(args, name);
const quick = args.includes('--quick');
const jsonFile = option('--json');
const BENCH_DOCS_FILE = 'docs/performance.md';
const writesDocuments = !quick && !args.includes('--no-write');
const settings = quick
  ? { coldRuns: 5, overheadIterations: 40, readIterations: 40, largeRecords: 300, scryptRuns: 3, enumerationSamples: 6, rounds: 1, windowMs: 300, deletionItems: [2_000] }
  : { coldRuns: 30, overheadIterations: 300, readIterations: 200, largeRecords: 5000, scryptRuns: 15, enumerationSamples: 40, rounds: 10, windowMs: 500, deletionItems: [10_000, 50_000] };

const THROUGHPUT_OPERATIONS = ['GET /api/users/me', 'GET /api/behavior/stats', 'GET /api/transcriptions', REFRESH_OPERATION];
const CONCURRENCIES = [1, 8, 32];

const log = progressLog('bench');

const table = (title: string, header: string[], rows: (string | number)[][]): string => `\n${title}\n${textTable(header, rows)}`;

const kb = (bytes: number) => (bytes / KB).toFixed(1);
const mark = (ok: boolean) => (ok ? 'ok' : 'MISSED');

function bundleGoal(bundle: BuiltBundle) {
  if (bundle.kind === 'authorizer') return GOALS.authorizerBytes;
  if (isWebauthnBundle(bundle.inputs)) return GOALS.webauthnBytes;
  return isIdentityBundle(bundle.inputs) ? GOALS.identityBytes : GOALS.functionBytes;
}

function coldGoalMet(result: ColdImportResult, bundle: BuiltBundle | undefined): boolean {
  if (bundle?.kind === 'authorizer') return result.medianMs - result.baselineMedianMs <= GOALS.authorizerColdImportMs;
  return result.ratio <= (bundle && isIdentityBundle(bundle.inputs) ? GOALS.identityColdImportRatio : GOALS.coldImportRatio);
}

async function main() {
  const major = Number(process.versions.node.split('.')[0]);
  log(
    major === LAMBDA_NODE_MAJOR
      ? `Node.js ${process.version}, the major version Lambda runs`
      : `Node.js ${process.version}; Lambda runs Node.js ${LAMBDA_NODE_MAJOR}, which npm run bench:lambda-node measures with`,
  );
  log('building every function with the Lambda bundling options');
  const { built: functions, floors } = await buildWithFloors(functionTargets());

  log(`cold import: ${functions.length} functions x ${settings.coldRuns} fresh processes, each next to its floor`);
  const { results: coldImport, cpu: coldCpu } = await measureColdImports(functions, floors, settings.coldRuns, (done, total) => {
    if (done % 5 === 0 || done === total) log(`cold import round ${done}/${total}`);
  });
  rmSync(dirname(floors.dynamodb.file), { recursive: true, force: true });

  log('starting DynamoDB Local and seeding accounts through the handlers');
  const bench = await startBench();
  try {
    const typical = await seedAccount(bench, 'typical', TYPICAL_ACCOUNT);
    const small = await seedAccount(bench, 'small', { transcriptions: 10, events: 10, days: 10 });
    log(`seeding the large account: ${settings.largeRecords} records and ${settings.largeRecords} events`);
    const large = await seedAccount(bench, 'large', { transcriptions: settings.largeRecords, events: settings.largeRecords, days: 400, concurrency: 8 });

    const { operations, skipped } = readOperations();
    log(`overhead: ${operations.length} read operations and refresh x ${settings.overheadIterations}, handler and bare SDK alternately`);
    const paired: PairedOperation[] = [];
    for (const operation of operations) paired.push(await pairOperation(bench, operation, typical));
    // The one write measured: a refresh, which every signed-in app makes several times a day.
    paired.push(await pairRefresh(bench, Math.max(...CONCURRENCIES)));
    const overhead = await measureOverhead(paired, settings.overheadIterations);

    log('read cost: 10 vs many records and events');
    const readCost: ReadCostResult[] = [];
    const readCostFloors: ReadCostFloor[] = [];
    for (const operation of READ_COST_OPERATIONS) {
      if (!operations.some((candidate) => candidate.id === operation)) {
        log(`read cost: ${operation} is not in the route table yet; skipped`);
        continue;
      }
      const { result, floor } = await measureReadCost(bench, operation, small, large, settings.readIterations);
      readCost.push(result);
      readCostFloors.push(floor);
    }

    log(`throughput at concurrency ${CONCURRENCIES.join(', ')}`);
    const throughput = await measureThroughput(
      paired.filter((operation) => THROUGHPUT_OPERATIONS.includes(operation.id)),
      CONCURRENCIES,
      settings,
    );

    log('scrypt and login timing');
    const { medianMs, cpuMedianMs } = await measureScrypt(settings.scryptRuns);
    const enumeration = await measureEnumeration(bench, settings.enumerationSamples);

    log(`account deletion: accounts of ${settings.deletionItems.join(' and ')} items, the request then the purge job`);
    const deletion: DeletionResult[] = [];
    for (const items of settings.deletionItems) deletion.push(await measureDeletion(bench, items));

    const report: Report = {
      node: process.version,
      bundles: functions.map((bundle) => ({ function: bundle.name, bytes: bundle.bytes, ownBytes: bundle.ownBytes, dataBytes: bundle.dataBytes })),
      coldImport,
      overhead,
      readCost,
      scrypt: { medianMs },
      throughput,
      enumeration,
      deletion,
    };
    const printed = print(report, { functions, paired, skipped, coldCpu, scryptCpuMs: cpuMedianMs, readCostFloors });
    if (writesDocuments) {
      const stamp = `Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC (\`npm run bench\`):`;
      writeSections(BENCH_DOCS_FILE, { bench: `${stamp}\n\n\`\`\`\n${printed}\n\`\`\`\n` });
      log(`the printed report written to ${BENCH_DOCS_FILE}`);
    }
    if (jsonFile) {
      writeFileSync(jsonFile, `${JSON.stringify(report, null, 2)}\n`);
      log(`JSON written to ${jsonFile}`);
    }
  } finally {
    await bench.close();
  }
  log('done');
}

interface Extras {
  functions: BuiltBundle[];
  paired: PairedOperation[];
  skipped: string[];
  coldCpu: ColdImportCpu[];
  scryptCpuMs: number;
  readCostFloors: ReadCostFloor[];
}

/** Prints the report's tables and answers them as printed. */
function print(report: Report, { functions, paired, skipped, coldCpu, scryptCpuMs, readCostFloors }: Extras): string {
  const bundleByName = new Map(functions.map((bundle) => [bundle.name, bundle]));
  const out: string[] = [`Measured on Node.js ${report.node} (Lambda runs Node.js ${LAMBDA_NODE_MAJOR})`];
  out.push(
    table(
      `Bundles (goal: function <= ${GOALS.functionBytes / KB} KB, identity function <= ${GOALS.identityBytes / KB} KB, passkey verification <= ${GOALS.webauthnBytes / KB} KB, authorizer <= ${GOALS.authorizerBytes / KB} KB, each without its data; own code <= ${GOALS.ownBytes / KB} KB; KB = 1024 bytes). Data: the password list, the phone metadata and the OpenAPI document, each under its own ceiling; own KB: our code outside node_modules`,
      ['function', 'KB', 'data KB', 'own KB', 'goal', 'largest parts (KB)'],
      functions.map((bundle) => [
        bundle.name,
        kb(bundle.bytes),
        kb(bundle.dataBytes),
        kb(bundle.ownBytes),
        mark(bundle.bytes - bundle.dataBytes <= bundleGoal(bundle) && bundle.ownBytes <= GOALS.ownBytes),
        largestInputs(bundle, 4)
          .map((part) => `${part.input.replace(/^.*\//, '')} ${kb(part.bytes)}`)
          .join(', '),
      ]),
    ),
  );
  const cpuOf = new Map(coldCpu.map((row) => [row.function, row]));
  out.push(
    table(
      `Cold import, medians of fresh processes; ratio = median over rounds of (import / the floor import next to it) (goal: ratio <= ${GOALS.coldImportRatio}, identity functions <= ${GOALS.identityColdImportRatio}; authorizer within ${GOALS.authorizerColdImportMs} ms of an empty bundle). CPU columns: the same imports in CPU time`,
      ['function', 'ms', 'floor ms', 'ratio', 'goal', 'CPU ms', 'floor CPU ms', 'CPU ratio'],
      report.coldImport.map((row) => {
        const cpu = cpuOf.get(row.function)!;
        return [
          row.function,
          row.medianMs.toFixed(1),
          row.baselineMedianMs.toFixed(1),
          row.ratio.toFixed(3),
          mark(coldGoalMet(row, bundleByName.get(row.function))),
          cpu.cpuMedianMs.toFixed(1),
          cpu.baselineCpuMedianMs.toFixed(1),
          cpu.cpuRatio.toFixed(3),
        ];
      }),
    ),
  );
  const commandsOf = new Map(paired.map((operation) => [operation.id, operation.commands.map((command) => command.Command.name.replace(/Command$/, '')).join('+')]));
  out.push(
    table(
      `Handler overhead, p50 in process against DynamoDB Local (goal: ratio <= ${GOALS.overheadRatio})`,
      ['operation', 'handler us', 'bare SDK us', 'ratio', 'goal', 'DynamoDB calls'],
      report.overhead.map((row) => [row.operation, row.handlerP50Us, row.bareP50Us, row.ratio.toFixed(3), mark(row.ratio <= GOALS.overheadRatio), commandsOf.get(row.operation) ?? '']),
    ),
  );
  if (skipped.length > 0) out.push(`(no fixture in test/bench/fixtures.ts, not measured: ${skipped.join(', ')})`);
  const floorOf = new Map(readCostFloors.map((row) => [row.operation, row]));
  out.push(
    table(
      `Read cost, small (10) vs large account, p50 (goal: ratio <= ${GOALS.readCostRatio}, same requests). Bare columns: the same commands on the bare client`,
      ['operation', 'small us', 'large us', 'ratio', 'requests', 'goal', 'bare small us', 'bare large us', 'bare ratio'],
      report.readCost.map((row) => {
        const floor = floorOf.get(row.operation)!;
        return [
          row.operation,
          row.smallP50Us,
          row.largeP50Us,
          row.ratio.toFixed(3),
          `${row.smallRequests} / ${row.largeRequests}`,
          mark(row.ratio <= GOALS.readCostRatio && row.smallRequests === row.largeRequests),
          floor.smallP50Us,
          floor.largeP50Us,
          floor.ratio.toFixed(3),
        ];
      }),
    ),
  );
  out.push(
    table(
      `Throughput in process (goal: ratio >= ${GOALS.throughputRatio})`,
      ['operation', 'concurrency', 'handler ops/s', 'bare ops/s', 'ratio', 'goal'],
      report.throughput.map((row) => [row.operation, row.concurrency, row.handlerOpsPerSec, row.bareOpsPerSec, row.ratio.toFixed(3), mark(row.ratio >= GOALS.throughputRatio)]),
    ),
  );
  out.push(
    // Reported, not a goal: it measures the CPU at the contract's fixed parameters, not our code.
    `\nscrypt (N=2^17, r=8, p=1), median: ${report.scrypt.medianMs} ms wall, ${scryptCpuMs} ms CPU`,
  );
  out.push(
    `Login with a wrong password, median: existing account ${report.enumeration.existingMedianMs} ms, unknown e-mail ${report.enumeration.unknownMedianMs} ms, ratio ${report.enumeration.ratio.toFixed(3)}`,
  );
  out.push(
    table(
      'Account deletion against DynamoDB Local: the request answers within its budget (the 10 s timeout less 2 s) whatever the account holds; the purge job deletes the rest',
      ['items', 'request ms', 'deleted by the job', 'job ms', 'ms per 10 000 items'],
      report.deletion.map((row) => [row.items, row.answerMs.toFixed(0), row.deletedByJob, row.jobMs.toFixed(0), row.msPer10kItems.toFixed(0)]),
    ),
  );
  process.stdout.write(`${out.join('\n')}\n`);
  return out.join('\n');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
