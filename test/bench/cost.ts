import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { routeId, routes } from '../../shared/routes';
import { AUTHORIZER, buildWithFloors, functionTargets } from './bundles';
import type { BuiltBundle, Floors } from './bundles';
import { writeSections } from '../../infra/tools/docs-sections';
import { CHART_FILE, costChart } from './cost-chart';
import { COST_DOCS_FILE, COST_REPORT_FILE, costDocsSections, documentedReport } from './cost-docs';
import { COST_VARIANTS, routeOfOperation } from './cost-drivers';
import { measureOperations, routesWithoutDriver } from './cost-measure';
import type { Measured } from './cost-measure';
import { BUDGET_FILE, budgetText, readBudget, readPrices, readProfile, updatedBudget } from './cost-data';
import { deploymentInventory } from './cost-deployment';
import type { DeploymentInventory } from './cost-deployment';
import type { MeasuredCounts } from './cost-data';
import { MEASUREMENTS_FILE, fingerprints, operationOrder, operationsToMeasure, priceMeasurements, pricedProfile, readMeasurements, runOf, writeMeasurements } from './cost-measurements';
import type { Measurements, StoredOperation } from './cost-measurements';
import { BREAKDOWN_LABELS } from './cost-model';
import type { Breakdown, CostReport, Prices, UsageProfile } from './cost-model';
import { measureColdImports } from './cold-import';
import { optionOf, progressLog, textTable } from './cli';
import { startBench } from './harness';

/**
 * `npm run cost [-- [ID ...] options]`: the routes of the route table through their real handlers
 * against DynamoDB Local (test/bench/cost-drivers.ts), priced with cost/prices.json and weighted by
 * a usage profile. It measures only the operations named (route ids, variants, `authorizer`), those
 * whose function changed since cost/measurements.json recorded them, and those it has no row of;
 * every other figure comes from that file (test/bench/cost-measurements.ts). Nothing to measure:
 * it prices in seconds; each measured operation adds a few seconds to the build, the cold imports
 * and the seeding of the typical account (about a minute together). Not part of npm test;
 * test/integration/capacity-budget.test.ts holds the counts, and test/unit/docs-generated.test.ts
 * the report to the measurements and the profile.
 *
 *   --all            measures every operation again (a new machine, Node.js or DynamoDB Local)
 *   --only           measures the named operations and those without a row, none that merely
 *                    changed: a new route's commit changes its own row and the totals
 *   --profile FILE   usage profile (default cost/usage-profile.json)
 *   --prices FILE    prices (default cost/prices.json)
 *   --mau N          the scale to compute at, instead of the profile's `mau` (X-Ray sampling depends on it)
 *   --json FILE      writes the report as JSON
 *   --svg FILE       writes the chart (docs/cost.md shows cost/cost-per-thousand-mau.svg)
 *   --markdown FILE  writes the per-operation table as docs/cost.md "What it costs" shows it
 *   --bench FILE     takes the measured functions' init times from a `npm run bench -- --json` report
 *   --cold-runs N    fresh-process imports per function for init times (default 5)
 *   --repeats N      measured calls per operation (default 5)
 *   --write-budget [ID ...]
 *                    only the capacity budget: measures the named operations (route ids, variants,
 *                    `authorizer`) and those without a row, rewrites the named rows and adds the
 *                    missing ones in cost/capacity-budget.json; other rows stay as they are, and a
 *                    row marked `handSet` is never lowered. Nothing else is priced or written.
 *   --no-write       only prints: without it, a run with the default profile, prices and scale writes
 *                    docs/cost.md's generated sections, cost/report.json and the chart
 */
const args = process.argv.slice(2);
const option = (name: string) => optionOf(args, name);
const log = progressLog('cost');
/** The figures docs/cost.md quotes come from a run with the committed inputs only. */
const writesDocuments = !args.includes('--no-write') && !['--profile', '--prices', '--mau', '--repeats'].some((name) => args.includes(name));

/** Init time of the given functions: the cold-import median of each bundle (docs/performance.md). */
async function initTimes(functions: BuiltBundle[], floors: Floors): Promise<Map<string, number>> {
  const benchFile = option('--bench');
  if (benchFile) {
    const report = JSON.parse(readFileSync(benchFile, 'utf8')) as { coldImport: { function: string; medianMs: number }[] };
    log(`init times from ${benchFile}`);
    return new Map(report.coldImport.map((row) => [row.function, row.medianMs]));
  }
  const runs = Number(option('--cold-runs') ?? 5);
  log(`init times: ${runs} fresh-process imports of each of ${functions.length} function(s)`);
  const { results } = await measureColdImports(functions, floors, runs);
  return new Map(results.map((row) => [row.function, row.medianMs]));
}

/** Options that take a value: what follows them is not a route id. */
const VALUE_OPTIONS = ['--profile', '--prices', '--mau', '--json', '--svg', '--markdown', '--bench', '--cold-runs', '--repeats'];
const namedIds = () => args.filter((arg, index) => !arg.startsWith('--') && !VALUE_OPTIONS.includes(args[index - 1] ?? ''));

/**
 * The measurements after this run: the stored ones, with the operations to measure measured
 * again (and the authorizer, if its function changed), rows of removed routes dropped.
 */
async function measure(named: string[], deployment: DeploymentInventory): Promise<Measurements> {
  const stored = readMeasurements();
  log('fingerprinting every function to see which changed');
  const fingerprinted = await fingerprints(functionTargets());
  const targets = operationsToMeasure(stored, fingerprinted, named, args.includes('--all'), args.includes('--only'));
  const operations: Record<string, StoredOperation> = {};
  for (const id of operationOrder()) if (stored?.operations[id]) operations[id] = stored.operations[id];
  let authorizerRow = stored?.authorizer;
  if (targets.length === 0) {
    log('nothing changed and nothing named: pricing the stored measurements');
    return { deployment, authorizer: authorizerRow!, operations };
  }
  log(`measuring ${targets.length}: ${targets.join(', ')}`);
  const functions = new Set(targets.map(routeOfOperation));
  log(`building ${functions.size} function(s) and the floors`);
  const { built, floors } = await buildWithFloors(functionTargets().filter((target) => functions.has(target.name)));
  try {
    const init = await initTimes(built, floors);
    log('starting DynamoDB Local; seeding a typical account through the handlers');
    const bench = await startBench();
    let measured: Measured;
    try {
      measured = await measureOperations(bench, {
        repeats: Number(option('--repeats') ?? 5),
        only: (id) => targets.includes(id),
        onProgress: (id, index, total) => log(`${index + 1}/${total} ${id}`),
      });
    } finally {
      await bench.close();
    }
    const stamp = (name: string) => ({
      fingerprint: fingerprinted.get(name)!,
      measuredAt: new Date().toISOString().slice(0, 10),
      node: process.versions.node,
      initMs: init.get(name) ?? Math.max(...init.values()),
    });
    for (const { operation, ...figures } of measured.operations) operations[operation] = { ...figures, ...stamp(routeOfOperation(operation)) };
    if (targets.includes(AUTHORIZER) || !authorizerRow) authorizerRow = { ...measured.authorizer, ...stamp(AUTHORIZER) };
    return { deployment, authorizer: authorizerRow, operations };
  } finally {
    rmSync(dirname(floors.dynamodb.file), { recursive: true, force: true });
  }
}

type Scenario = { messagingPerThousandMauUsd: number; perThousandMauUsd: number; totalPerThousandMauUsd: number };
const scenarioLine = (label: string, figures: Scenario) =>
  `  ${label}: messaging $${figures.messagingPerThousandMauUsd.toFixed(3)} + the stack $${figures.perThousandMauUsd.toFixed(3)} = $${figures.totalPerThousandMauUsd.toFixed(3)} per 1 000 MAU a month`;

/** Issue 38: the same without and with the profile's share of sign-ins by Apple, Google or WeChat. */
function socialLines(report: CostReport): string[] {
  const social = report.details.social;
  if (!social) return [];
  return [
    `Apple, Google, WeChat (issue 38), ${(social.signInShare * 100).toFixed(0)} % of the monthly sign-ins in this profile:`,
    scenarioLine('without them', social.withoutSocial),
    scenarioLine('with them   ', social.withSocial),
  ];
}

/** Issue 30: messaging and the total without passkeys and with the profile's share of passkey sign-ins. */
function passkeyLines(report: CostReport): string[] {
  const passkeys = report.details.passkeys;
  if (!passkeys) return [];
  return [
    `passkeys (issue 30), ${(passkeys.signInShare * 100).toFixed(0)} % of the monthly sign-ins by passkey in this profile:`,
    scenarioLine('without passkeys', passkeys.withoutPasskeys),
    scenarioLine(`with passkeys   `, passkeys.withPasskeys),
  ];
}

/** Issue 29: the month's requests and cost with the summary at app open and with the reads it replaces. */
function appOpenLines(report: CostReport): string[] {
  const appOpen = report.details.appOpen;
  if (!appOpen || appOpen.summariesPerUserPerMonth === 0) return [];
  const line = (label: string, figures: { requestsPerUserPerMonth: number; perThousandMauUsd: number }) =>
    `  ${label}: ${figures.requestsPerUserPerMonth} requests a user a month, the stack $${figures.perThousandMauUsd.toFixed(3)} per 1 000 MAU`;
  return [
    `app open (issue 29), ${appOpen.summariesPerUserPerMonth} summaries a user a month in this profile:`,
    line('with the separate reads', appOpen.withSeparateReads),
    line('with the summary       ', appOpen.withSummary),
  ];
}

/** Issue 44: the providers' bill for the profile's captioning, beside the stack's. */
function speechLines(report: CostReport): string[] {
  const speech = report.details.speech;
  if (!speech) return [];
  return [
    `\nSpeech (issue 44): ${speech.hoursPerUserPerMonth} hours of captions a user a month, ${speech.renewalsPerUserPerMonth} renewals at a ${speech.heartbeatSeconds} s heartbeat; the speech routes $${speech.speechRoutesPerThousandMauUsd.toFixed(3)} of the stack's $${report.perThousandMauUsd.toFixed(3)} per 1 000 MAU\n` +
      textTable(
        ['provider', '$/hour', 'provider $/1 000 MAU', 'with the stack', 'source'],
        speech.providers.map((row) => [row.provider, `${row.usdPerHour}${row.verified ? '' : ' (unconfirmed)'}`, row.perThousandMauUsd.toFixed(2), (row.perThousandMauUsd + report.perThousandMauUsd).toFixed(2), `${row.source} (${row.date})`]),
      ),
  ];
}

/** Issue 45: the live channel's month, and a change's and an open hour's price. */
function liveChannelLines(report: CostReport): string[] {
  const live = report.details.liveChannel;
  if (!live) return [];
  const parts = live.perThousandMauUsd;
  return [
    `\nLive channel (issue 45): ${live.openHoursPerUserPerMonth} open hours, ${live.connectionsPerUserPerMonth} connections, ${live.changesPerUserPerMonth} changes a user a month; ` +
      `${live.messagesPerUserPerMonth.pokes} pokes and ${live.messagesPerUserPerMonth.pingsAndPongs} pings and pongs; ` +
      `${live.invocationsPerUserPerMonth.connection} + ${live.invocationsPerUserPerMonth.authorizer} + ${live.invocationsPerUserPerMonth.fanOut} invocations (connection, authorizer, fan-out)`,
    `  per 1 000 MAU: messages $${parts.messages.toFixed(3)}, connection-minutes $${parts.connectionMinutes.toFixed(3)}, Lambda $${parts.lambda.toFixed(3)}, DynamoDB $${parts.dynamoDb.toFixed(3)}, ` +
      `stream reads $${parts.streamReads.toFixed(3)}, logs $${parts.logs.toFixed(3)}: $${parts.total.toFixed(3)}`,
    `  a change (its pokes and its share of a fan-out): $${live.usdPerMillionChanges.toFixed(2)} per million; an hour of an open app: $${live.usdPerMillionConnectionHours.toFixed(2)} per million`,
  ];
}

function print(report: CostReport, measured: Measurements, profile: UsageProfile, prices: Prices) {
  const rows = Object.entries(measured.operations);
  const commandsOf = new Map(rows.map(([id, operation]) => [id, operation.commands.join('+')]));
  const perItemOf = new Map(rows.map(([id, operation]) => [id, operation.writeUnitsPerItemFloor]));
  const out: string[] = [];
  out.push(
    `\nPer operation (one warm call; units as DynamoDB Local reports them; ms on this machine against DynamoDB Local)\n` +
      textTable(
        ['operation', 'calls/user/month', 'DDB req', 'RCU', 'WCU', 'WCU per item', 'ms', 'MB', 'log B', '$/million', 'DynamoDB calls'],
        report.operations.map((row) => [
          row.operation,
          profile.callsPerUserPerMonth[row.operation] ?? '-',
          row.dynamoRequests,
          row.readUnits,
          row.writeUnits,
          perItemOf.get(row.operation) ?? '',
          row.handlerMs.toFixed(1),
          row.memoryMb,
          row.logBytes,
          row.usdPerMillion.toFixed(2),
          commandsOf.get(row.operation) ?? '',
        ]),
      ),
  );
  const authorizer = measured.authorizer;
  out.push(
    `authorizer: ${authorizer.dynamoRequests} request(s), ${authorizer.readUnits} RCU, ${authorizer.handlerMs} ms at ${authorizer.memoryMb} MB, ${authorizer.functionLogBytes} log B; ` +
      `${report.details.authorizerInvocationsPerUserPerMonth} runs per user a month (cache windows)`,
  );
  const parts = report.details.perThousandMauByComponent;
  out.push(
    `\nWhere the money goes, USD per 1 000 MAU a month at ${profile.mau.toLocaleString('en-US')} MAU (X-Ray samples ${(report.details.xRaySampledShare * 100).toFixed(1)} % of requests)\n` +
      textTable(
        ['component', 'USD', 'share'],
        (Object.keys(parts) as (keyof Breakdown)[]).map((key) => [BREAKDOWN_LABELS[key], parts[key].toFixed(3), `${((parts[key] / report.perThousandMauUsd) * 100).toFixed(1)} %`]),
      ),
  );
  const fixed = report.details.deployment;
  out.push(
    `by the month, whatever the traffic (${fixed.stage} stage): ${fixed.webAcls} WAF web ACL with ${fixed.wafRules} rules, ${fixed.alarms} alarms, ` +
      `${fixed.dashboards} dashboard, ${fixed.customMetrics} custom metrics, ${fixed.secrets} secret: $${fixed.fixedMonthlyUsd.toFixed(2)} a month ` +
      `($${parts.fixedMonthly.toFixed(3)} per 1 000 MAU at this scale)`,
  );
  out.push(
    `\nTop operations, USD per 1 000 MAU a month\n` +
      textTable(
        ['operation', 'USD'],
        [...report.details.perThousandMauByOperation.slice(0, 8).map((row) => [row.operation, row.usd.toFixed(3)]), ['authorizer', report.details.authorizerPerThousandMauUsd.toFixed(3)]],
      ),
  );
  out.push(
    `\n${report.details.requestsPerUserPerMonth} requests per user a month; $${report.perMillionRequestsUsd.toFixed(3)} per million requests of this mix (storage, the live channel and the monthly charges excluded)`,
    `$${report.perThousandMauUsd.toFixed(3)} per 1 000 MAU a month, messaging excluded (sign-in part only: $${report.details.identityPerThousandMauUsd.toFixed(3)})`,
    `with transactions billed per item as on AWS (DynamoDB Local reports less): $${report.details.withPerItemTransactions.perThousandMauUsd.toFixed(3)} per 1 000 MAU (DynamoDB $${report.details.withPerItemTransactions.dynamoDbPerThousandMauUsd.toFixed(3)})`,
    `$${report.messagingPerThousandMauUsd.toFixed(3)} per 1 000 MAU a month for verification messages (SES and SMS, mix of the profile)`,
    ...passkeyLines(report),
    ...socialLines(report),
    ...appOpenLines(report),
    `goal: at most $${report.details.goal.maxPerThousandMauUsd.toFixed(2)} (1/5 of ${report.details.goal.anchor}): ${report.details.goal.met ? 'met' : 'MISSED'}`,
    ...liveChannelLines(report),
    ...speechLines(report),
  );
  out.push(
    `\nAnchors, USD per 1 000 MAU a month (list price / at 10k / at 100k MAU)\n` +
      textTable(
        ['anchor', 'list', '10k', '100k'],
        prices.anchors.map((anchor) => [anchor.name, anchor.perThousandMauUsd ?? 'n/a', anchor.at10kMauPerThousandUsd ?? 'n/a', anchor.at100kMauPerThousandUsd ?? 'n/a']),
      ),
  );
  if (report.details.unknownOperations.length > 0) out.push(`\nskipped (in the profile, not in the route table): ${report.details.unknownOperations.join(', ')}`);
  if (report.details.unpricedOperations.length > 0) out.push(`not in the profile (priced per call, no calls): ${report.details.unpricedOperations.join(', ')}`);
  process.stdout.write(`${out.join('\n')}\n`);
}

/** The ids after `--write-budget`, up to the next option. */
function budgetIds(): string[] {
  const at = args.indexOf('--write-budget');
  const ids: string[] = [];
  for (const arg of args.slice(at + 1)) {
    if (arg.startsWith('--')) break;
    ids.push(arg);
  }
  return ids;
}

/** `--write-budget [ID ...]`: the named rows and the missing ones, measured alone; nothing else. */
async function writeBudget() {
  const order = [...routes.map(routeId), ...Object.keys(COST_VARIANTS), AUTHORIZER];
  const named = budgetIds();
  const unknown = named.filter((id) => !order.includes(id));
  if (unknown.length > 0) throw new Error(`--write-budget: not a route id, variant or authorizer: ${unknown.join(', ')} (ids as shared/routes.ts spells them, e.g. 'GET /api/devices/{sn}')`);
  const rows = readBudget();
  const targets = order.filter((id) => named.includes(id) || !rows.some((row) => row.operation === id));
  if (targets.length === 0) {
    log('every operation has a row; name the rows to rewrite');
    return;
  }
  log(`measuring ${targets.join(', ')} against DynamoDB Local`);
  const bench = await startBench();
  let measured: Measured;
  try {
    measured = await measureOperations(bench, {
      repeats: Number(option('--repeats') ?? 3),
      only: (id) => targets.includes(id),
      onProgress: (id, index, total) => log(`${index + 1}/${total} ${id}`),
    });
  } finally {
    await bench.close();
  }
  const counts: MeasuredCounts[] = [
    ...measured.operations.map((operation) => ({ operation: operation.operation, maxReadUnits: operation.readUnits, maxWriteUnits: operation.writeUnits, maxDynamoRequests: operation.dynamoRequests })),
    { operation: AUTHORIZER, maxReadUnits: measured.authorizer.readUnits, maxWriteUnits: measured.authorizer.writeUnits, maxDynamoRequests: measured.authorizer.dynamoRequests },
  ].filter((row) => targets.includes(row.operation));
  const missingDriver = targets.filter((id) => id !== AUTHORIZER && !counts.some((row) => row.operation === id));
  if (missingDriver.length > 0) log(`warning: no driver in test/bench/cost-drivers.ts, no row written: ${missingDriver.join(', ')}`);
  const next = updatedBudget(rows, counts, named, order);
  writeFileSync(BUDGET_FILE, budgetText(next));
  for (const row of counts) {
    const kept = next.find((candidate) => candidate.operation === row.operation)!;
    log(`${row.operation}: ${row.maxDynamoRequests} requests, ${row.maxReadUnits} RCU, ${row.maxWriteUnits} WCU measured${kept.handSet ? ` (hand-set row: ${kept.maxDynamoRequests}/${kept.maxReadUnits}/${kept.maxWriteUnits} kept)` : ''}`);
  }
  log(`wrote ${BUDGET_FILE}`);
}

async function main() {
  if (args.includes('--write-budget')) return writeBudget();
  const profileFile = option('--profile');
  const pricesFile = option('--prices');
  const mau = option('--mau');
  const profile = { ...(profileFile ? readProfile(profileFile) : readProfile()), ...(mau ? { mau: Number(mau) } : {}) };
  const prices = pricesFile ? readPrices(pricesFile) : readPrices();
  for (const id of Object.keys(profile.callsPerUserPerMonth)) {
    if (!COST_VARIANTS[id] && !routes.some((route) => routeId(route) === id)) log(`warning: the profile names ${id}, which is not in the route table: skipped`);
  }
  const missing = routesWithoutDriver();
  if (missing.length > 0) log(`warning: no driver in test/bench/cost-drivers.ts, not measured: ${missing.join(', ')}`);

  const named = namedIds();
  const known = [...operationOrder(), AUTHORIZER];
  const unknown = named.filter((id) => !known.includes(id));
  if (unknown.length > 0) throw new Error(`not a route id, variant or authorizer: ${unknown.join(', ')} (ids as shared/routes.ts spells them, e.g. 'GET /api/devices/{sn}')`);

  log('counting what the prod stage pays by the month (cdk synth, no bundling)');
  const deployment = deploymentInventory(profile);
  const measured = await measure(named, deployment);
  if (!args.includes('--no-write')) {
    writeMeasurements(measured);
    log(`wrote ${MEASUREMENTS_FILE}`);
  }
  const report = priceMeasurements(measured, prices, profile);
  print(report, measured, pricedProfile(profile), prices);

  const documented = documentedReport(report, pricedProfile(profile), measured.authorizer, runOf(measured));
  const jsonFile = option('--json');
  if (jsonFile) {
    writeFileSync(jsonFile, `${JSON.stringify(documented, null, 2)}\n`);
    log(`JSON written to ${jsonFile}`);
  }
  if (writesDocuments) {
    writeFileSync(COST_REPORT_FILE, `${JSON.stringify(documented, null, 2)}\n`);
    writeFileSync(CHART_FILE, costChart(report, prices, profile.name));
    writeSections(COST_DOCS_FILE, costDocsSections(documented));
    log(`wrote ${COST_REPORT_FILE}, ${CHART_FILE} and the generated sections of ${COST_DOCS_FILE}`);
  }
  const markdownFile = option('--markdown');
  if (markdownFile) {
    writeFileSync(markdownFile, costDocsSections(documented)['cost-operations']!);
    log(`table written to ${markdownFile}`);
  }
  const svgFile = option('--svg');
  if (svgFile) {
    writeFileSync(svgFile, costChart(report, prices, profile.name));
    log(`chart written to ${svgFile}`);
  }
  log('done');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
