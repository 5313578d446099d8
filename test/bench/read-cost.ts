import type { SeededAccount } from './fixtures';
import { findRoute, replay, timeHandlerCall, waves } from './harness';
import type { Bench } from './harness';
import { median, ratio } from './stats';

/**
 * Reads whose cost the contract says must not grow with the data (usage from aggregates,
 * statistics from aggregates): a small and a large account read alternately, with the DynamoDB
 * requests of each read counted.
 */
export interface ReadCostResult {
  operation: string;
  smallP50Us: number;
  largeP50Us: number;
  ratio: number;
  smallRequests: number;
  largeRequests: number;
}

/** The same DynamoDB commands replayed on the bare client: how much of a ratio the database itself makes. */
export interface ReadCostFloor {
  operation: string;
  smallP50Us: number;
  largeP50Us: number;
  ratio: number;
}

export const READ_COST_OPERATIONS = ['GET /api/transcriptions/usage', 'GET /api/behavior/stats'];

export async function measureReadCost(
  bench: Bench,
  operation: string,
  small: SeededAccount,
  large: SeededAccount,
  iterations: number,
): Promise<{ result: ReadCostResult; floor: ReadCostFloor }> {
  const route = findRoute(operation);
  const run = await bench.handler(route);
  const once = async (account: SeededAccount) => {
    const event = bench.event(route, { account });
    return timeHandlerCall(run, event, bench.context(route, event), operation);
  };
  const requests = async (account: SeededAccount) => {
    const counts = new Set<number>();
    for (let index = 0; index < 3; index++) counts.add(await bench.countRequests(() => once(account)));
    if (counts.size !== 1) throw new Error(`${operation}: the number of DynamoDB requests varies between reads (${[...counts].join(', ')})`);
    return [...counts][0]!;
  };
  for (let index = 0; index < 10; index++) {
    await once(small);
    await once(large);
  }
  const smallRequests = await requests(small);
  const largeRequests = await requests(large);
  const plans = { small: waves(await bench.record(() => once(small))), large: waves(await bench.record(() => once(large))) };
  const bare = async (size: 'small' | 'large') => {
    const started = performance.now();
    await replay(bench.bare, plans[size]);
    return performance.now() - started;
  };
  const times = { small: [] as number[], large: [] as number[], bareSmall: [] as number[], bareLarge: [] as number[] };
  for (let index = 0; index < iterations; index++) {
    const order = index % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const);
    for (const size of order) times[size].push(await once(size === 'small' ? small : large));
    for (const size of order) times[size === 'small' ? 'bareSmall' : 'bareLarge'].push(await bare(size));
  }
  const p50 = (values: number[]) => median(values) * 1000;
  return {
    result: {
      operation,
      smallP50Us: Math.round(p50(times.small)),
      largeP50Us: Math.round(p50(times.large)),
      ratio: ratio(p50(times.large), p50(times.small)),
      smallRequests,
      largeRequests,
    },
    floor: {
      operation,
      smallP50Us: Math.round(p50(times.bareSmall)),
      largeP50Us: Math.round(p50(times.bareLarge)),
      ratio: ratio(p50(times.bareLarge), p50(times.bareSmall)),
    },
  };
}
