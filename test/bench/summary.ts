import type { SeededAccount, SeedPlan } from './fixtures';
import { findRoute, replay, timeHandlerCall, waves } from './harness';
import type { Bench, RequestSpec } from './harness';
import { median, ratio, shuffled } from './stats';

/**
 * Issue 29: the app opens with one request, `GET /api/users/me/summary`, instead of the four reads
 * it replaces (shared/accounts/summary-service.ts: the profile, the first page of devices, a week
 * of usage, the statistics items that hold the settings). The goal compares its p50 with the
 * slowest of those reads: the app sends them in parallel, so the slowest is what it waited for.
 *
 * All five are timed in the same rounds, in a shuffled order each round, so a load that comes and
 * goes on the shared machine falls on every side alike, each next to its DynamoDB commands replayed
 * on the bare client (what the database takes: DynamoDB Local answers the summary's four parallel
 * requests on the same two cores). Each also has its DynamoDB requests counted.
 */
export const SUMMARY_OPERATION = 'GET /api/users/me/summary';

/** The reads an app open made before the summary, with the query the summary stands for. */
export const REPLACED_READS: { id: string; query?: Record<string, string> }[] = [
  { id: 'GET /api/users/me' },
  { id: 'GET /api/devices' },
  { id: 'GET /api/transcriptions/usage', query: { days: '7' } },
  { id: 'GET /api/behavior/stats' },
];

/**
 * A person a few weeks into using the glasses: three devices, records on each of the last seven
 * days and events of every type (the seed cycles through all six general types and logins), so
 * every part of the summary has something to read and the settings are all set.
 */
export const APP_OPEN_ACCOUNT: SeedPlan = { devices: 3, transcriptions: 35, events: 42, days: 7 };

export interface SummaryRead {
  operation: string;
  p50Us: number;
  /** The same DynamoDB commands, replayed on the bare client (parallel ones in parallel). */
  bareP50Us: number;
  requests: number;
}

export interface SummaryResult {
  summary: SummaryRead;
  reads: SummaryRead[];
  /** The replaced read with the highest p50. */
  slowest: string;
  /** Summary p50 over the slowest read's p50 (GOALS.summaryRatio). */
  ratio: number;
  /** Summary p50 over the sum of the reads' p50s: what an app that sends them one after another waits. */
  ratioToSum: number;
  /** The bare replays' ratio, summary over the same slowest read: how much of `ratio` the database makes. */
  bareRatio: number;
  samples: number;
}

/** A handler call ready to time: the event built before the clock starts. */
export async function timedOperation(bench: Bench, id: string, spec: RequestSpec): Promise<() => Promise<number>> {
  const route = findRoute(id);
  const run = await bench.handler(route);
  return async () => {
    // The event is built before the clock starts, as API Gateway builds it before the function runs.
    const event = bench.event(route, spec);
    return timeHandlerCall(run, event, bench.context(route, event), id);
  };
}

export async function measureSummary(bench: Bench, account: SeededAccount, iterations: number): Promise<SummaryResult> {
  const sides = [{ id: SUMMARY_OPERATION }, ...REPLACED_READS];
  const handlers = await Promise.all(sides.map((side) => timedOperation(bench, side.id, { account, ...(side.query ? { query: side.query } : {}) })));

  const requests: number[] = [];
  for (const once of handlers) requests.push(await bench.countRequests(once));
  for (let index = 0; index < 10; index++) for (const once of handlers) await once();
  const bares: (() => Promise<number>)[] = [];
  for (const once of handlers) {
    const plan = waves(await bench.record(once));
    bares.push(async () => {
      const started = performance.now();
      await replay(bench.bare, plan);
      return performance.now() - started;
    });
  }
  for (let index = 0; index < 10; index++) for (const once of bares) await once();

  const timers = [...handlers, ...bares];
  const times = timers.map(() => [] as number[]);
  for (let index = 0; index < iterations; index++) {
    for (const timer of shuffled(timers.map((_, position) => position))) times[timer]!.push(await timers[timer]!());
  }
  const p50s = times.map((values) => median(values) * 1000);
  const handlerP50 = p50s.slice(0, sides.length);
  const bareP50 = p50s.slice(sides.length);
  const rows = sides.map((side, index) => ({
    operation: side.query ? `${side.id}?${new URLSearchParams(side.query)}` : side.id,
    p50Us: Math.round(handlerP50[index]!),
    bareP50Us: Math.round(bareP50[index]!),
    requests: requests[index]!,
  }));
  // The slowest of the replaced reads (1..4), by the handler's p50.
  const slowest = handlerP50.reduce((best, value, index) => (index > 0 && (best === 0 || value > handlerP50[best]!) ? index : best), 0);
  const sum = handlerP50.slice(1).reduce((total, value) => total + value, 0);
  return {
    summary: rows[0]!,
    reads: rows.slice(1),
    slowest: rows[slowest]!.operation,
    ratio: ratio(handlerP50[0]!, handlerP50[slowest]!),
    ratioToSum: ratio(handlerP50[0]!, sum),
    bareRatio: ratio(bareP50[0]!, bareP50[slowest]!),
    samples: iterations,
  };
}
