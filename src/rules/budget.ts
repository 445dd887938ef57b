import { bucketFloor } from '../collectors/billing-windows.js';
import type { Config } from '../config/schema.js';
import type { BudgetConfig } from '../config/sections/budgets.js';
import { getBackfill } from '../db/billing.js';
import type { Database } from '../db/open.js';
import { ALL_ACCOUNTS, type BudgetStatus, type CostDriver } from './budget-status.js';
import { forecastSpend, projectAtRate, runsOutAt } from './forecast.js';
import { currentPeriod } from './period.js';
import { type ResourceCost, scopeSpend, sum } from './spend.js';

export { ALL_ACCOUNTS, type BudgetStatus, type CostDriver } from './budget-status.js';

/** How many of the largest cost drivers an alert names. */
const DRIVERS = 3;

/** Every configured budget's status at `now` (read only: for rules, metrics and /api/status). */
export function budgetStatus(database: Database, config: Config, now: number): BudgetStatus[] {
  return config.budgets.map((budget) => statusOf(database, config, budget, now));
}

function statusOf(database: Database, config: Config, budget: BudgetConfig, now: number): BudgetStatus {
  const bucketSize = config.collectors.billing.bucketSize;
  const accounts = config.accounts
    .map((a) => a.name)
    .filter((name) => budget.account === undefined || name === budget.account);
  const period = currentPeriod(budget, now);
  // The window may reach into earlier periods, but never before the history every account has.
  const known = accounts.map(
    (account) => getBackfill(database, { account, kind: budget.scope, bucketSize })?.cursorStartTime,
  );
  const knownSince = known.every((t) => t !== undefined) && known.length > 0 ? Math.max(...(known as number[])) : null;
  const windowStart = bucketFloor(Math.max(now - budget.forecastWindowMs, knownSince ?? now), bucketSize);
  const spends = accounts.map((account) =>
    scopeSpend(database, account, budget, { period, windowStart, now, bucketSize }),
  );
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

function largestDrivers(resources: readonly ResourceCost[]): CostDriver[] {
  return resources
    .map((r) => ({
      account: r.account,
      kind: r.kind,
      resourceId: r.resourceId,
      name: r.name,
      amount: r.billedInPeriod + r.unbilledInPeriod,
    }))
    .filter((driver) => driver.amount > 0)
    .sort((a, b) => b.amount - a.amount || a.resourceId.localeCompare(b.resourceId))
    .slice(0, DRIVERS);
}
