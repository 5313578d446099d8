import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../infra/project-root';
import { pricesSchema, profileSchema, withoutComments } from './cost-model';
import type { Prices, UsageProfile } from './cost-model';

/** The cost model's data files (cost/), read and checked: the script and the tests read them the same way. */
export const COST_DIR = join(PROJECT_ROOT, 'cost');

export interface BudgetRow {
  /** A route id, or `authorizer`. */
  operation: string;
  maxReadUnits: number;
  maxWriteUnits: number;
  maxDynamoRequests: number;
  /**
   * Set by hand, with why: the measured call does not show the worst case (the export's page of a
   * long history). `npm run cost -- --write-budget` raises such a row to a measurement above it,
   * never lowers it.
   */
  handSet?: string;
}

export type MeasuredCounts = Pick<BudgetRow, 'operation' | 'maxReadUnits' | 'maxWriteUnits' | 'maxDynamoRequests'>;

/**
 * The budget after a `--write-budget` run: rows of `rewrite` (ids) and rows missing from `rows`
 * take the measured counts; every other row stays as it was, in its place. A new row goes before
 * the first row that comes after it in `order` (the route table's order, the variants, the
 * authorizer). A hand-set row keeps its limits where the measurement is below them.
 */
export function updatedBudget(rows: readonly BudgetRow[], measured: readonly MeasuredCounts[], rewrite: readonly string[], order: readonly string[]): BudgetRow[] {
  const result = rows.map((row) => ({ ...row }));
  const rank = (operation: string) => {
    const at = order.indexOf(operation);
    return at < 0 ? order.length : at;
  };
  for (const counts of measured) {
    const at = result.findIndex((row) => row.operation === counts.operation);
    if (at < 0) {
      const before = result.findIndex((row) => rank(row.operation) > rank(counts.operation));
      result.splice(before < 0 ? result.length : before, 0, { ...counts });
      continue;
    }
    if (!rewrite.includes(counts.operation)) continue;
    const old = result[at]!;
    result[at] = old.handSet
      ? {
          operation: old.operation,
          maxReadUnits: Math.max(old.maxReadUnits, counts.maxReadUnits),
          maxWriteUnits: Math.max(old.maxWriteUnits, counts.maxWriteUnits),
          maxDynamoRequests: Math.max(old.maxDynamoRequests, counts.maxDynamoRequests),
          handSet: old.handSet,
        }
      : { ...counts };
  }
  return result;
}

export const budgetText = (rows: readonly BudgetRow[]) => `${JSON.stringify(rows, null, 2)}\n`;

const readJson = (file: string): unknown => withoutComments(JSON.parse(readFileSync(file, 'utf8')));

export const readPrices = (file = join(COST_DIR, 'prices.json')): Prices => pricesSchema.parse(readJson(file));
export const readProfile = (file = join(COST_DIR, 'usage-profile.json')): UsageProfile => profileSchema.parse(readJson(file));
export const BUDGET_FILE = join(COST_DIR, 'capacity-budget.json');
export const readBudget = (): BudgetRow[] => readJson(BUDGET_FILE) as BudgetRow[];
