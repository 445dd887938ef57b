import type { Config } from '../config/schema.js';
import type { Database } from '../db/open.js';
import type { PodRecord } from '../db/pods.js';
import { readBilledSince, readBudgetResources, readSpend } from '../db/snapshot-budget.js';
import { type BudgetInputs, type BudgetStatus, budgetSpendQueries, budgetStatuses } from '../rules/budget.js';

/**
 * What the budget rule reads at `now`: where each account's billing history begins, the spend
 * of every budget's period and burn-rate window (which depend on those beginnings), and each
 * account's live resources (its Pods from the tick's snapshot when given).
 */
export function readBudgetInputs(
  database: Database,
  config: Config,
  now: number,
  pods?: (account: string) => readonly PodRecord[] | undefined,
): BudgetInputs {
  const accounts = config.accounts.map((a) => a.name);
  const billedSince = readBilledSince(database, accounts, config.collectors.billing.bucketSize);
  return {
    billedSince,
    spend: readSpend(database, budgetSpendQueries(config, billedSince, now)),
    resources: new Map(accounts.map((account) => [account, readBudgetResources(database, account, pods?.(account))])),
  };
}

/** Every configured budget's status at `now`, read and judged at once (for pages and metrics off the tick). */
export function budgetStatus(database: Database, config: Config, now: number): BudgetStatus[] {
  return budgetStatuses(config, readBudgetInputs(database, config, now), now);
}
