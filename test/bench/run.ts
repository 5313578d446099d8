import { writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
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
import { GOALS, KB, isIdentityBundle, isWebauthnBundle, ownCodeGoal } from './goals';
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
import { APP_OPEN_ACCOUNT, measureSummary } from './summary';
import { FEED_PAGE, measureSync } from './sync';
import type { SyncResult } from './sync';
import { measureRealtime } from './realtime';
import type { RealtimeResult } from './realtime';
import type { SummaryResult } from './summary';
import { SEARCH_READ_ITEMS } from '../../shared/db/transcriptions-repository';
import { PAGE_LIMIT, measureSearch } from './search';
import type { SearchResult } from './search';

/**
 * `npm run bench [-- --json FILE] [-- --quick] [-- --no-write] [-- --only PART,PART]`: bundles, cold
 * import, handler overhead, read cost, the app-open summary, search, scrypt, throughput and login
 * timing, each next to its floor measured in the same run. `--quick` runs a few samples of
 * everything (to check the benchmark itself, not to quote). `--only` runs some parts (PARTS below),
 * full-size, and writes nothing into the documents. A full run writes what it prints into
 * docs/performance.md (section `bench`) unless `--no-write`.
 * Everything runs on the Node.js that runs this script; `npm run bench:lambda-node` runs it on the
 * Lambda runtime's major version instead.
 */
interface Report {
  /** The Node.js version everything was measured on; beyond the shape. */
  node: string;
  /** The host's 1-minute load average while the bench ran (sampled every 15 s), and its cores: how busy the machine was. */
  load: { start: number; median: number; max: number; cores: number };
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
  /** Issue 29: the app-open summary against the four reads it replaces. */
  summary?: SummaryResult;
  /** Issue 31: a search page against a plain list page over 5 000 records, and pages per search. */
  search?: SearchResult;
  /** Issue 36: the change feed's page, its saves and an up-to-date device. */
  sync?: SyncResult;
  /** Issue 45: from a save's answer to the poke at another connection (local server). */
  realtime?: RealtimeResult;
}

const args = process.argv.slice(2);
const option = (name: string) => optionOf(args, name);
const quick = args.includes('--quick');
const jsonFile = option('--json');
const BENCH_DOCS_FILE = 'docs/performance.md';
/** What `--only` can name; each runs what it needs (throughput the overhead's pairs, cold import the bundles). */
const PARTS = ['bundles', 'cold-import', 'overhead', 'read-cost', 'throughput', 'summary', 'search', 'sync', 'identity', 'deletion', 'realtime'] as const;
type Part = (typeof PARTS)[number];
const only = option('--only')?.split(',');
const unknownParts = only?.filter((part) => !(PARTS as readonly string[]).includes(part)) ?? [];
if (unknownParts.length > 0) throw new Error(`--only: no part ${unknownParts.join(', ')}; the parts: ${PARTS.join(', ')}`);
const runs = (part: Part) => only === undefined || only.includes(part);
const writesDocuments = !quick && !args.includes('--no-write') && only === undefined;
const settings = quick
  ? { coldRuns: 5, overheadIterations: 40, readIterations: 40, largeRecords: 300, scryptRuns: 3, enumerationSamples: 6, rounds: 1, windowMs: 300, deletionItems: [2_000], summaryIterations: 30, searchRecords: 1000, searchIterations: 10, searchBoundRounds: 1, syncIterations: 30, syncLargeHistory: 300 }
  : { coldRuns: 30, overheadIterations: 300, readIterations: 200, largeRecords: 5000, scryptRuns: 15, enumerationSamples: 40, rounds: 10, windowMs: 500, deletionItems: [10_000, 50_000], summaryIterations: 300, searchRecords: 5000, searchIterations: 150, searchBoundRounds: 3, syncIterations: 300, syncLargeHistory: 2000 };

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

/** Samples the host's 1-minute load average every 15 s until `stop()`: the figures are only as good as the machine was quiet. */
function sampleLoad(): { stop(): Report['load'] } {
  const samples = [loadavg()[0]!];
  const timer = setInterval(() => samples.push(loadavg()[0]!), 15_000);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      samples.push(loadavg()[0]!);
      const sorted = [...samples].sort((a, b) => a - b);
      const at = (value: number) => Math.round(value * 10) / 10;
      return { start: at(samples[0]!), median: at(sorted[Math.floor(sorted.length / 2)]!), max: at(sorted.at(-1)!), cores: availableParallelism() };
    },
  };
}

async function main() {
  const load = sampleLoad();
  const major = Number(process.versions.node.split('.')[0]);
  log(
    major === LAMBDA_NODE_MAJOR
      ? `Node.js ${process.version}, the major version Lambda runs`
      : `Node.js ${process.version}; Lambda runs Node.js ${LAMBDA_NODE_MAJOR}, which npm run bench:lambda-node measures with`,
  );
  if (only) log(`only ${only.join(', ')}: nothing is written into the documents`);
  let functions: BuiltBundle[] = [];
  let coldImport: ColdImportResult[] = [];
  let coldCpu: ColdImportCpu[] = [];
  if (runs('bundles') || runs('cold-import')) {
    log('building every function with the Lambda bundling options');
    const { built, floors } = await buildWithFloors(functionTargets());
    functions = built;
    if (runs('cold-import')) {
      log(`cold import: ${functions.length} functions x ${settings.coldRuns} fresh processes, each next to its floor`);
      ({ results: coldImport, cpu: coldCpu } = await measureColdImports(functions, floors, settings.coldRuns, (done, total) => {
        if (done % 5 === 0 || done === total) log(`cold import round ${done}/${total}`);
      }));
    }
    rmSync(dirname(floors.dynamodb.file), { recursive: true, force: true });
  }

  log('starting DynamoDB Local and seeding accounts through the handlers');
  const bench = await startBench();
  try {
    const { operations, skipped } = readOperations();
    const paired: PairedOperation[] = [];
    let overhead: OverheadResult[] = [];
    let throughput: ThroughputResult[] = [];
    // Seeded before anything is timed, as they always were, so the table is the same size for the figures of every run.
    const typical = runs('overhead') || runs('throughput') ? await seedAccount(bench, 'typical', TYPICAL_ACCOUNT) : undefined;
    const small = runs('read-cost') ? await seedAccount(bench, 'small', { transcriptions: 10, events: 10, days: 10 }) : undefined;
    if (runs('read-cost')) log(`seeding the large account: ${settings.largeRecords} records and ${settings.largeRecords} events`);
    const large = runs('read-cost') ? await seedAccount(bench, 'large', { transcriptions: settings.largeRecords, events: settings.largeRecords, days: 400, concurrency: 8 }) : undefined;
    if (typical) {
      log(`overhead: ${operations.length} read operations and refresh x ${settings.overheadIterations}, handler and bare SDK alternately`);
      for (const operation of operations) paired.push(await pairOperation(bench, operation, typical));
      // The one write measured: a refresh, which every signed-in app makes several times a day.
      paired.push(await pairRefresh(bench, Math.max(...CONCURRENCIES)));
      if (runs('overhead')) overhead = await measureOverhead(paired, settings.overheadIterations);
    }

    const readCost: ReadCostResult[] = [];
    const readCostFloors: ReadCostFloor[] = [];
    if (small && large) {
      log('read cost: 10 vs many records and events');
      for (const operation of READ_COST_OPERATIONS) {
        if (!operations.some((candidate) => candidate.id === operation)) {
          log(`read cost: ${operation} is not in the route table yet; skipped`);
          continue;
        }
        const { result, floor } = await measureReadCost(bench, operation, small, large, settings.readIterations);
        readCost.push(result);
        readCostFloors.push(floor);
      }
    }

    if (runs('throughput')) {
      log(`throughput at concurrency ${CONCURRENCIES.join(', ')}`);
      throughput = await measureThroughput(
        paired.filter((operation) => THROUGHPUT_OPERATIONS.includes(operation.id)),
        CONCURRENCIES,
        settings,
      );
    }

    let summary: SummaryResult | undefined;
    if (runs('summary')) {
      const appOpen = await seedAccount(bench, 'app-open', APP_OPEN_ACCOUNT);
      log(`summary: GET /api/users/me/summary and the four reads it replaces, x ${settings.summaryIterations} in shuffled rounds`);
      summary = await measureSummary(bench, appOpen, settings.summaryIterations);
    }

    let search: SearchResult | undefined;
    if (runs('search')) {
      log(`search: ${settings.searchRecords} records, search pages and plain list pages x ${settings.searchIterations} in shuffled rounds`);
      search = await measureSearch(bench, settings.searchRecords, settings.searchIterations, settings.searchBoundRounds, log);
    }

    let sync: SyncResult | undefined;
    if (runs('sync')) sync = await measureSync(bench, { iterations: settings.syncIterations, largeHistory: settings.syncLargeHistory }, log);

    let scrypt = { medianMs: Number.NaN, cpuMedianMs: Number.NaN };
    let enumeration: EnumerationResult = { existingMedianMs: Number.NaN, unknownMedianMs: Number.NaN, ratio: Number.NaN };
    if (runs('identity')) {
      log('scrypt and login timing');
      scrypt = await measureScrypt(settings.scryptRuns);
      enumeration = await measureEnumeration(bench, settings.enumerationSamples);
    }

    const deletion: DeletionResult[] = [];
    if (runs('deletion')) {
      log(`account deletion: accounts of ${settings.deletionItems.join(' and ')} items, the request then the purge job`);
      for (const items of settings.deletionItems) deletion.push(await measureDeletion(bench, items));
    }

    let realtime: RealtimeResult | undefined;
    if (runs('realtime')) realtime = await measureRealtime(bench, quick ? 30 : 200, log);

    const report: Report = {
      node: process.version,
      load: load.stop(),
      bundles: functions.map((bundle) => ({ function: bundle.name, bytes: bundle.bytes, ownBytes: bundle.ownBytes, dataBytes: bundle.dataBytes })),
      coldImport,
      overhead,
      readCost,
      scrypt: { medianMs: scrypt.medianMs },
      throughput,
      enumeration,
      deletion,
      ...(summary ? { summary } : {}),
      ...(search ? { search } : {}),
      ...(sync ? { sync } : {}),
      ...(realtime ? { realtime } : {}),
    };
    const printed = print(report, { functions, paired, skipped, coldCpu, scryptCpuMs: scrypt.cpuMedianMs, readCostFloors });
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
  const out: string[] = [
    `Measured on Node.js ${report.node} (Lambda runs Node.js ${LAMBDA_NODE_MAJOR}); host load average (1 min) ${report.load.start} at the start, median ${report.load.median}, max ${report.load.max}, on ${report.load.cores} cores`,
  ];
  // `--only` leaves parts out: each table is printed when its part ran.
  if (runs('bundles')) out.push(
    table(
      `Bundles (goal: function <= ${GOALS.functionBytes / KB} KB, identity function <= ${GOALS.identityBytes / KB} KB, passkey verification <= ${GOALS.webauthnBytes / KB} KB, authorizer <= ${GOALS.authorizerBytes / KB} KB, each without its data; own code <= ${GOALS.ownBytes / KB} KB, ${GOALS.speechIssuerOwnBytes / KB} KB for the speech issuers; KB = 1024 bytes). Data: the password list, the phone metadata and the OpenAPI document, each under its own ceiling; own KB: our code outside node_modules`,
      ['function', 'KB', 'data KB', 'own KB', 'goal', 'largest parts (KB)'],
      functions.map((bundle) => [
        bundle.name,
        kb(bundle.bytes),
        kb(bundle.dataBytes),
        kb(bundle.ownBytes),
        mark(bundle.bytes - bundle.dataBytes <= bundleGoal(bundle) && bundle.ownBytes <= ownCodeGoal(bundle.name)),
        largestInputs(bundle, 4)
          .map((part) => `${part.input.replace(/^.*\//, '')} ${kb(part.bytes)}`)
          .join(', '),
      ]),
    ),
  );
  const cpuOf = new Map(coldCpu.map((row) => [row.function, row]));
  if (report.coldImport.length > 0) out.push(
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
  if (report.overhead.length > 0) out.push(
    table(
      `Handler overhead, p50 in process against DynamoDB Local (goal: ratio <= ${GOALS.overheadRatio})`,
      ['operation', 'handler us', 'bare SDK us', 'ratio', 'goal', 'DynamoDB calls'],
      report.overhead.map((row) => [row.operation, row.handlerP50Us, row.bareP50Us, row.ratio.toFixed(3), mark(row.ratio <= GOALS.overheadRatio), commandsOf.get(row.operation) ?? '']),
    ),
  );
  if (report.overhead.length > 0 && skipped.length > 0) out.push(`(no fixture in test/bench/fixtures.ts, not measured: ${skipped.join(', ')})`);
  const floorOf = new Map(readCostFloors.map((row) => [row.operation, row]));
  if (report.readCost.length > 0) out.push(
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
  if (report.summary) out.push(summaryTable(report.summary));
  if (report.search) out.push(...searchTables(report.search));
  if (report.sync) out.push(...syncTables(report.sync));
  if (report.realtime) {
    out.push(table('The live channel: from a save\'s answer to the poke at another connection (local server)', ['saves', 'p50 ms', 'p95 ms'], [[report.realtime.saves, report.realtime.p50Ms, report.realtime.p95Ms]]));
  }
  if (report.throughput.length > 0) out.push(
    table(
      `Throughput in process (goal: ratio >= ${GOALS.throughputRatio})`,
      ['operation', 'concurrency', 'handler ops/s', 'bare ops/s', 'ratio', 'goal'],
      report.throughput.map((row) => [row.operation, row.concurrency, row.handlerOpsPerSec, row.bareOpsPerSec, row.ratio.toFixed(3), mark(row.ratio >= GOALS.throughputRatio)]),
    ),
  );
  if (!Number.isNaN(report.scrypt.medianMs)) out.push(
    // Reported, not a goal: it measures the CPU at the contract's fixed parameters, not our code.
    `\nscrypt (N=2^17, r=8, p=1), median: ${report.scrypt.medianMs} ms wall, ${scryptCpuMs} ms CPU`,
  );
  if (!Number.isNaN(report.enumeration.ratio)) out.push(
    `Login with a wrong password, median: existing account ${report.enumeration.existingMedianMs} ms, unknown e-mail ${report.enumeration.unknownMedianMs} ms, ratio ${report.enumeration.ratio.toFixed(3)}`,
  );
  if (report.deletion.length > 0) out.push(
    table(
      'Account deletion against DynamoDB Local: the request answers within its budget (the 10 s timeout less 2 s) whatever the account holds; the purge job deletes the rest',
      ['items', 'request ms', 'deleted by the job', 'job ms', 'ms per 10 000 items'],
      report.deletion.map((row) => [row.items, row.answerMs.toFixed(0), row.deletedByJob, row.jobMs.toFixed(0), row.msPer10kItems.toFixed(0)]),
    ),
  );
  process.stdout.write(`${out.join('\n')}\n`);
  return out.join('\n');
}

function summaryTable(result: SummaryResult): string {
  return table(
    `App open: GET /api/users/me/summary vs the reads it replaces, account with ${APP_OPEN_ACCOUNT.devices} devices, ${APP_OPEN_ACCOUNT.transcriptions} records and ${APP_OPEN_ACCOUNT.events} events of every type over ${APP_OPEN_ACCOUNT.days} days; p50 of ${result.samples} each, all five in shuffled order every round (goal: summary <= ${GOALS.summaryRatio} x the slowest read). Summary ${result.summary.p50Us} us = ${result.ratio.toFixed(3)} x the slowest (${result.slowest}): ${mark(result.ratio <= GOALS.summaryRatio)}; ${result.ratioToSum.toFixed(3)} x the four one after another. Bare: the same DynamoDB commands on the bare client, parallel ones in parallel (summary over the same read: ${result.bareRatio.toFixed(3)})`,
    ['operation', 'p50 us', 'bare us', 'DynamoDB requests'],
    [result.summary, ...result.reads].map((row) => [row.operation, row.p50Us, row.bareP50Us, row.requests]),
  );
}

function syncTables(result: SyncResult): string[] {
  const upToDateMet = (row: SyncResult['upToDate'][number]) => row.dynamoRequests <= GOALS.upToDateDynamoRequests;
  return [
    table(
      `Change feed (issue 36), p50 of ${result.samples} each in shuffled rounds. A page of ${FEED_PAGE} records against a list page of the same ${FEED_PAGE} (goal: <= ${GOALS.feedPageRatio} x): ${result.feedRatio.toFixed(3)} ${mark(result.feedRatio <= GOALS.feedPageRatio)}. A save with its feed entry against the save before the feed, at the repository (goal: <= ${GOALS.feedSaveRatio} x): ${result.saveRatio.toFixed(3)} ${mark(result.saveRatio <= GOALS.feedSaveRatio)}. Bare: the same DynamoDB commands on the bare client`,
      ['operation', 'p50 us', 'bare us', 'DynamoDB requests'],
      [result.feed, result.list, result.save, result.saveBefore].map((row) => [row.operation, row.p50Us, row.bareP50Us ?? '', row.dynamoRequests]),
    ),
    table(
      `An up-to-date device: one pull from the head's cursor, one request (goal: at most ${GOALS.upToDateDynamoRequests} DynamoDB requests whatever the history)`,
      ['records in the account', 'p50 us', 'DynamoDB requests', 'goal'],
      result.upToDate.map((row) => [row.records, row.p50Us, row.dynamoRequests, mark(upToDateMet(row))]),
    ),
  ];
}

function searchTables(result: SearchResult): string[] {
  const { history } = result;
  return [
    table(
      `Search over ${history.records} records (${Math.round(history.chineseShare * 100)} % Chinese, ${(history.textBytes / 1024 / 1024).toFixed(1)} MB of titles and text, seeded with BatchWrite in ${(result.seedMs / 1000).toFixed(1)} s): one page (limit ${PAGE_LIMIT}) vs a plain list page (limit ${PAGE_LIMIT}, ${result.list.p50Us} us, bare ${result.list.bareP50Us} us, ${result.list.readUnitsMedian} read units); p50 of ${result.samples} pages each across the whole history, shuffled rounds (goal: page <= ${GOALS.searchPageRatio} x the list page). Bare: the same DynamoDB commands on the bare client`,
      ['query', 'page us', 'bare us', 'ratio', 'goal', 'records read a page (median)', 'pages cut by 1 MB'],
      result.queries.map((row) => [`${row.label}: q=${row.q}`, row.pageP50Us, row.bareP50Us, row.ratio.toFixed(3), mark(row.ratio <= GOALS.searchPageRatio), row.recordsPerPageMedian, `${row.pagesCutBy1Mb} of ${row.pagesFullWalk}`]),
    ),
    table(
      `Pages per search (limit ${PAGE_LIMIT}): to the first ${PAGE_LIMIT} results, as the app client asks, and to the end of the history; read units of the whole walk`,
      ['query', 'results', `pages to first ${PAGE_LIMIT}`, 'pages, whole history', 'read units, whole history'],
      result.queries.map((row) => [`${row.label}: q=${row.q}`, row.results, row.pagesToFirstLimit, row.pagesFullWalk, row.readUnitsFullWalk]),
    ),
    table(
      `The search's Query at other item bounds (it reads ${SEARCH_READ_ITEMS}; 1 MB applies to each), bare client, every page of whole walks, bounds shuffled each round: what the database alone takes next to a list page's read of ${PAGE_LIMIT}`,
      ['items per page', 'bare page us', `ratio to ${PAGE_LIMIT} items`, 'pages, whole history'],
      result.readBounds.map((row) => [row.items, row.bareP50Us, row.ratio.toFixed(3), row.pagesFullWalk]),
    ),
  ];
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
