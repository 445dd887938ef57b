import { bucketFloor } from '../buckets.js';
import type { Config } from '../config/schema.js';
import type { BudgetConfig } from '../config/sections/budgets.js';
import { billedKey } from '../db/snapshot-budget.js';
import type { SpendQuery } from '../db/spend.js';
import { ALL_ACCOUNTS, type BudgetStatus, type CostDriver } from './budget-status.js';
import { forecastSpend, projectAtRate, runsOutAt } from './forecast.js';
import { currentPeriod } from './period.js';
import {
  type BudgetInputs,
  type KindCosts,
  type ResourceCost,
  type SpendWindow,
  scopeQueries,
  scopeSpend,
  sum,
} from './spend.js';

export { ALL_ACCOUNTS, type BudgetStatus, type CostDriver } from './budget-status.js';
export type { BudgetInputs } from './spend.js';

/** How many of the largest cost drivers an alert names. */
const DRIVERS = 3;

/** A budget's accounts, period and burn-rate window at `now`. */
function windowOf(config: Config, budget: BudgetConfig, billedSince: ReadonlyMap<string, number>, now: number) {
  const bucketSize = config.collectors.billing.bucketSize;
  const accounts = config.accounts
    .map((a) => a.name)
    .filter((name) => budget.account === undefined || name === budget.account);
  const period = currentPeriod(budget, now);
  // The window may reach into earlier periods, but never before the history every account has.
  const known = accounts.map((account) => billedSince.get(billedKey(account, budget.scope)));
  const knownSince = known.every((t) => t !== undefined) && known.length > 0 ? Math.max(...(known as number[])) : null;
  const windowStart = bucketFloor(Math.max(now - budget.forecastWindowMs, knownSince ?? now), bucketSize);
  const window: SpendWindow = { period, windowStart, now, bucketSize };
  return { accounts, knownSince, window };
}

/** The spend every configured budget reads at `now`, given where each account's billing history begins. */
export function budgetSpendQueries(
  config: Config,
  billedSince: ReadonlyMap<string, number>,
  now: number,
): SpendQuery[] {
  return config.budgets.flatMap((budget) => {
    const { accounts, window } = windowOf(config, budget, billedSince, now);
    return accounts.flatMap((account) => scopeQueries(account, budget, window));
  });
}

/** Every configured budget's status at `now`: pure of what the tick read (`budgetSpendQueries` answered). */
export function budgetStatuses(config: Config, inputs: BudgetInputs, now: number): BudgetStatus[] {
  const costs: KindCosts = new Map();
  return config.budgets.map((budget) => statusOf(config, budget, inputs, now, costs));
}

function statusOf(
  config: Config,
  budget: BudgetConfig,
  inputs: BudgetInputs,
  now: number,
  costs: KindCosts,
): BudgetStatus {
  const { accounts, knownSince, window } = windowOf(config, budget, inputs.billedSince, now);
  const { period, windowStart } = window;
  const spends = accounts.map((account) => scopeSpend(inputs, account, budget, window, costs, config.owners));
  const resources = spends.flatMap((spend) => spend.resources);
  const actual = sum(spends, (s) => s.actual);
  const live = actual + sum(resources, (r) => r.unbilledInPeriod);
  const currentPerHour = sum(resources, (r) => r.perHour);
  const projected =
    knownSince === null
      ? null
      : forecastSpend({
          windowSpend: sum(spends, (s) => s.billedInWindow) + sum(resources, (r) => r.unbilledInWindow),
          windowStart,
          live,
          periodEnd: period.endMs,
          now,
          minHistoryMs: budget.forecastMinHistoryMs,
        });
  return {
    budget: budget.name,
    account: budget.account ?? ALL_ACCOUNTS,
    scope: budget.scope,
    ...(budget.team !== undefined ? { team: budget.team } : {}),
    ...(budget.owner !== undefined ? { owner: budget.owner } : {}),
    period,
    periodKind: budget.period,
    timeZone: budget.timeZone,
    amount: budget.amount,
    thresholds: budget.thresholds,
    figures: budget.figures,
    ...(budget.recipients ? { recipients: budget.recipients } : {}),
    actual,
    live,
    forecast: projected?.forecast ?? null,
    burnPerHour: projected?.burnPerHour ?? null,
    burnWindowMs: projected ? now - windowStart : null,
    currentPerHour,
    forecastAtCurrentRate: projectAtRate(live, currentPerHour, period.endMs, now),
    runsOutAt: runsOutAt(live, budget.amount, currentPerHour, now),
    drivers: largestDrivers(resources),
    evaluatedAt: now,
  };
}

/**
 * The DRIVERS resources of largest period spend (above 0), largest first, ties by resource id,
 * equal ones in the order given: what a stable sort of them all would put first, without it.
 */
function largestDrivers(resources: readonly ResourceCost[]): CostDriver[] {
  const top: CostDriver[] = [];
  for (const r of resources) {
    const amount = r.billedInPeriod + r.unbilledInPeriod;
    if (!(amount > 0)) continue;
    if (top.length === DRIVERS && !(ranksBefore(amount, r.resourceId, top[DRIVERS - 1] as CostDriver) < 0)) continue;
    let at = top.length;
    while (at > 0 && ranksBefore(amount, r.resourceId, top[at - 1] as CostDriver) < 0) at--;
    top.splice(at, 0, { account: r.account, kind: r.kind, resourceId: r.resourceId, name: r.name, amount });
    if (top.length > DRIVERS) top.pop();
  }
  return top;
}

/** The drivers' order: negative when (amount, resourceId) comes before `driver`. */
function ranksBefore(amount: number, resourceId: string, driver: CostDriver): number {
  return driver.amount - amount || resourceId.localeCompare(driver.resourceId);
}
