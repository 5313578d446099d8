import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AUTHORIZER } from '../bench/bundles';
import { readBudget } from '../bench/cost-data';
import { measureOperations } from '../bench/cost-measure';
import type { Measured } from '../bench/cost-measure';
import { startBench } from '../bench/harness';
import type { Bench } from '../bench/harness';

/**
 * Issue 15: every operation, driven as npm run cost drives it (test/bench/cost-drivers.ts) through
 * its real handler against DynamoDB Local, stays within its row of cost/capacity-budget.json. A
 * change that adds a DynamoDB request or a capacity unit fails here until the budget is raised
 * on purpose (`npm run cost -- --write-budget '<route id>'` rewrites that row from a run; a
 * row marked `handSet` is never lowered). Counts only: DynamoDB
 * Local reports the same units on every run, times would not.
 */
let bench: Bench;
let measured: Measured;

beforeAll(async () => {
  bench = await startBench({ dynamo: { endpoint: inject('dynamoEndpoint'), stop: async () => undefined } });
  measured = await measureOperations(bench, { repeats: 2 });
}, 300_000);
afterAll(() => bench?.close());

describe('capacity budget', () => {
  it('holds every operation and the authorizer to its DynamoDB requests, read units and write units', () => {
    const figures = [
      ...measured.operations,
      { operation: AUTHORIZER, ...measured.authorizer },
    ];
    const over: string[] = [];
    for (const row of readBudget()) {
      const figure = figures.find((candidate) => candidate.operation === row.operation);
      if (!figure) continue; // A route without a driver: test/unit/route-coverage.test.ts names it.
      const checks: [string, number, number][] = [
        ['DynamoDB requests', figure.dynamoRequests, row.maxDynamoRequests],
        ['read units', figure.readUnits, row.maxReadUnits],
        ['write units', figure.writeUnits, row.maxWriteUnits],
      ];
      for (const [what, value, max] of checks) if (value > max) over.push(`${row.operation}: ${value} ${what}, budget ${max}`);
    }
    expect(over, 'raise cost/capacity-budget.json on purpose, or take the cost back out').toEqual([]);
  });

  it('measures every operation of the budget', () => {
    const measuredIds = [...measured.operations.map((operation) => operation.operation), AUTHORIZER];
    expect(readBudget().map((row) => row.operation).filter((operation) => !measuredIds.includes(operation))).toEqual([]);
  });
});
