import type { Config } from '../config/schema.js';
import type { Database } from '../db/open.js';
import type { PodRecord } from '../db/pods.js';
import { readBudgetSnapshot } from '../db/snapshot-budget.js';
import { type BudgetInputs, type BudgetStatus, budgetSpendQueries, budgetStatuses } from '../rules/budget.js';
import { selectsByOwner } from '../rules/budget-owners.js';

/**
 * What the budget rule reads at `now`: where each account's billing history begins, the spend
 * of every budget's period and burn-rate window (which depend on those beginnings), and each
 * account's live resources (its Pods from the tick's snapshot when given).
 */
export async function readBudgetInputs(
  database: Database,
  config: Config,
  now: number,
  pods?: (account: string) => readonly PodRecord[] | undefined,
): Promise<BudgetInputs> {
  return readBudgetSnapshot(database, {
    accounts: config.accounts.map((a) => a.name),
    bucketSize: config.collectors.billing.bucketSize,
    queriesOf: (billedSince) => budgetSpendQueries(config, billedSince, now),
    withEnv: config.budgets.some(selectsByOwner),
    ...(pods ? { pods } : {}),
  });
}

/** Every configured budget's status at `now`, read and judged at once (for pages and metrics off the tick). */
export async function budgetStatus(database: Database, config: Config, now: number): Promise<BudgetStatus[]> {
  return budgetStatuses(config, await readBudgetInputs(database, config, now), now);
}
