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
}

const readJson = (file: string): unknown => withoutComments(JSON.parse(readFileSync(file, 'utf8')));

export const readPrices = (file = join(COST_DIR, 'prices.json')): Prices => pricesSchema.parse(readJson(file));
export const readProfile = (file = join(COST_DIR, 'usage-profile.json')): UsageProfile => profileSchema.parse(readJson(file));
export const BUDGET_FILE = join(COST_DIR, 'capacity-budget.json');
export const readBudget = (): BudgetRow[] => readJson(BUDGET_FILE) as BudgetRow[];
