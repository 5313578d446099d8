import { createHash } from 'node:crypto';
import { build } from 'esbuild';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SMALL_MEMORY_MB } from '../../infra/constructs/service-function';
import { API_TRACE_SAMPLING } from '../../infra/stack';
import { parseConfig } from '../../shared/config';
import { authorizer, findRoute, routeId, routes } from '../../shared/routes';
import type { RouteId } from '../../shared/routes';
import { AUTHORIZER, PROJECT_ROOT } from './bundles';
import type { BundleTarget } from './bundles';
import { COST_DIR } from './cost-data';
import type { DeploymentInventory } from './cost-deployment';
import { COST_VARIANTS, routeOfOperation } from './cost-drivers';
import { platformLogBytes } from './cost-measure';
import type { AuthorizerMeasure, OperationMeasure } from './cost-measure';
import { costReport, withDerivedCalls } from './cost-model';
import type { CostReport, Prices, UsageProfile } from './cost-model';

/**
 * Issue 35: what `npm run cost` measured, per operation, kept in cost/measurements.json so that
 * pricing a profile reads it instead of measuring again. A run re-measures only the operations
 * named, those whose function changed (its fingerprint) or that have no row, or all with `--all`;
 * every other row stays as it is, byte for byte. So adding a route to the profile changes its own
 * row of the report and the totals, and a reviewer sees what the route costs.
 *
 * Counts (requests, units, bytes) are deterministic; times (handler, init) are this machine's on
 * the day of `measuredAt`.
 */
export const MEASUREMENTS_FILE = join(COST_DIR, 'measurements.json');

export interface Stamp {
  /** The function's fingerprint when measured: see fingerprintOf. */
  fingerprint: string;
  measuredAt: string;
  node: string;
  /** Cold-import median of the function's bundle (docs/performance.md). */
  initMs: number;
}

export type StoredOperation = Omit<OperationMeasure, 'operation'> & Stamp;
export type StoredAuthorizer = AuthorizerMeasure & Stamp;

export interface Measurements {
  $comment?: string;
  /** What the prod stage pays by the month (cdk synth without bundling), refreshed by every run. */
  deployment: DeploymentInventory;
  authorizer: StoredAuthorizer;
  operations: Record<string, StoredOperation>;
}

const COMMENT =
  'Written by npm run cost (test/bench/cost-measurements.ts): each operation as last measured through its real handler against DynamoDB Local, with the fingerprint of its function then. A run re-measures the operations named, those whose function changed and those missing (or all: --all), and keeps every other row. Do not edit by hand.';

export function readMeasurements(file = MEASUREMENTS_FILE): Measurements | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Measurements) : undefined;
}

/** Every operation in the order the report lists them: the route table's, then the variants. */
export const operationOrder = (): string[] => [...routes.map(routeId), ...Object.keys(COST_VARIANTS)];

export function writeMeasurements(measurements: Omit<Measurements, '$comment'>, file = MEASUREMENTS_FILE): void {
  const order = operationOrder();
  const rank = (id: string) => (order.includes(id) ? order.indexOf(id) : order.length);
  const operations = Object.fromEntries(Object.entries(measurements.operations).sort(([a], [b]) => rank(a) - rank(b)));
  writeFileSync(file, `${JSON.stringify({ $comment: COMMENT, deployment: measurements.deployment, authorizer: measurements.authorizer, operations }, null, 2)}\n`);
}

const contents = new Map<string, string>();
const hashOfFile = (path: string) => {
  let hash = contents.get(path);
  if (hash === undefined) {
    hash = createHash('sha256').update(readFileSync(join(PROJECT_ROOT, path))).digest('hex');
    contents.set(path, hash);
  }
  return hash;
};

/**
 * What a function's measurement depends on: its own route's entry, the contents of every source
 * file of this project its bundle is built from (shared/routes.ts aside: every bundle holds the
 * whole table, and another route's line changes nothing here), and the locked dependency versions.
 * Resolved by esbuild with the packages left out, in well under a second a function, where a full
 * bundle takes seconds.
 */
export async function fingerprints(targets: readonly BundleTarget[]): Promise<Map<string, string>> {
  const lock = hashOfFile('package-lock.json');
  const entries = await Promise.all(
    targets.map(async (target) => {
      const result = await build({
        absWorkingDir: PROJECT_ROOT,
        entryPoints: [join(PROJECT_ROOT, target.entry)],
        bundle: true,
        write: false,
        metafile: true,
        packages: 'external',
        platform: 'node',
        format: 'esm',
        ...(target.conditions ? { conditions: target.conditions } : {}),
        logLevel: 'error',
      });
      const hash = createHash('sha256');
      hash.update(`${JSON.stringify(target.name === AUTHORIZER ? authorizer : findRoute(target.name as RouteId))}\n${lock}\n`);
      for (const input of Object.keys(result.metafile.inputs).sort()) {
        if (input === 'shared/routes.ts') continue;
        hash.update(`${input}\n${hashOfFile(input)}\n`);
      }
      return [target.name, hash.digest('hex').slice(0, 16)] as const;
    }),
  );
  return new Map(entries);
}

/**
 * The operations a run measures: named, changed, missing, or all (`all`). With `only`, the named
 * and the missing alone: a route's commit then changes its own row, whatever else changed since
 * the last run (the next run without it measures that).
 */
export function operationsToMeasure(
  stored: Measurements | undefined,
  fingerprints: ReadonlyMap<string, string>,
  named: readonly string[],
  all: boolean,
  only = false,
): string[] {
  return [...operationOrder(), AUTHORIZER].filter((id) => {
    if (all || named.includes(id)) return true;
    const row = id === AUTHORIZER ? stored?.authorizer : stored?.operations[id];
    if (!row) return true;
    return !only && row.fingerprint !== fingerprints.get(id === AUTHORIZER ? AUTHORIZER : routeOfOperation(id));
  });
}

/** The settings of the stack and the functions that pricing reads. */
export function pricingSettings() {
  const defaults = parseConfig({ TABLE_NAME: 'cost' });
  return {
    authorizerCacheSeconds: defaults.AUTHORIZER_CACHE_SECONDS,
    traceSampling: API_TRACE_SAMPLING,
    keysMaxAgeSeconds: defaults.KEYS_MAX_AGE_SECONDS,
    speechHeartbeatSeconds: defaults.SPEECH_HEARTBEAT_SECONDS,
    liveChannelMemoryMb: SMALL_MEMORY_MB,
    liveChannelLogBytesPerInvocation: platformLogBytes(SMALL_MEMORY_MB),
  };
}

/** The profile as priced: its own calls and those its captioning implies with the deployment's heartbeat. */
export const pricedProfile = (profile: UsageProfile): UsageProfile => withDerivedCalls(profile, pricingSettings());

/** The report of the stored measurements, priced with `prices` and weighted by `profile`: no measuring. */
export function priceMeasurements(measurements: Measurements, prices: Prices, profile: UsageProfile): CostReport {
  const ids = operationOrder().filter((id) => measurements.operations[id]);
  return costReport({
    operations: ids.map((id) => ({ operation: id, ...measurements.operations[id]! })),
    authorizer: measurements.authorizer,
    prices,
    profile,
    settings: pricingSettings(),
    deployment: measurements.deployment,
  });
}

/** When and on which Node.js the report's figures were measured: the latest row's. */
export function runOf(measurements: Measurements): { date: string; node: string } {
  const rows = [measurements.authorizer, ...Object.values(measurements.operations)];
  const latest = rows.reduce((best, row) => (row.measuredAt > best.measuredAt ? row : best));
  return { date: latest.measuredAt, node: latest.node };
}
