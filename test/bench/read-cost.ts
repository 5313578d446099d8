import type { SeededAccount } from './fixtures';
import { findRoute } from './harness';
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

export const READ_COST_OPERATIONS = ['GET /api/transcriptions/usage', 'GET /api/behavior/stats'];

export async function measureReadCost(bench: Bench, operation: string, small: SeededAccount, large: SeededAccount, iterations: number): Promise<ReadCostResult> {
  const route = findRoute(operation);
  const run = await bench.handler(route);
  const once = async (account: SeededAccount) => {
    const event = bench.event(route, { account });
    const context = bench.context(route, event);
    const started = performance.now();
    const result = await run(event, context);
    const duration = performance.now() - started;
    if (result.statusCode !== 200) throw new Error(`${operation} answered ${result.statusCode}: ${result.body}`);
    return duration;
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
  const smallMs: number[] = [];
  const largeMs: number[] = [];
  for (let index = 0; index < iterations; index++) {
    if (index % 2 === 0) {
      smallMs.push(await once(small));
      largeMs.push(await once(large));
    } else {
      largeMs.push(await once(large));
      smallMs.push(await once(small));
    }
  }
  const smallP50 = median(smallMs) * 1000;
  const largeP50 = median(largeMs) * 1000;
  return { operation, smallP50Us: Math.round(smallP50), largeP50Us: Math.round(largeP50), ratio: ratio(largeP50, smallP50), smallRequests, largeRequests };
}
