import { bucketFloor } from '../collectors/billing-windows.js';
import type { Config } from '../config/schema.js';
import type { BudgetConfig, BudgetFigure, BudgetScope } from '../config/sections/budgets.js';
import { getBackfill } from '../db/billing.js';
import type { Database } from '../db/open.js';
import { budgetFindings } from './budget-findings.js';
import type { Evaluator } from './evaluator.js';
import { forecastSpend, runsOutAt } from './forecast.js';
import { currentPeriod, type Period } from './period.js';
import { type ResourceCost, scopeSpend, sum } from './spend.js';

/** The account label of a budget over every configured account. */
export const ALL_ACCOUNTS = 'all';

/** How many of the largest cost drivers an alert names. */
const DRIVERS = 3;

export interface CostDriver {
  account: string;
  kind: ResourceCost['kind'];
  resourceId: string;
  name: string;
  /** Spend in the period so far, billed and not yet billed. */
  amount: number;
}

/** Where one budget stands now: its three figures and what drives them. */
export interface BudgetStatus {
  budget: string;
  /** The configured account, or `all`. */
  account: string;
  scope: BudgetScope;
  period: Period;
  amount: number;
  thresholds: number[];
  figures: BudgetFigure[];
  recipients?: string[];
  /** Billed spend of the period so far. */
  actual: number;
  /** Actual plus what has not been billed yet. */
  live: number;
  /** Live plus the burn rate until the period's end; null until enough history is known. */
  forecast: number | null;
  /** USD per hour over the forecast window; null with forecast. */
  burnPerHour: number | null;
  /** USD per hour the scope costs now. */
  currentPerHour: number;
  /** When live spend reaches the amount at the current rate; null if it has or never will. */
  runsOutAt: number | null;
  drivers: CostDriver[];
}

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
    amount: budget.amount,
    thresholds: budget.thresholds,
    figures: budget.figures,
    ...(budget.recipients ? { recipients: budget.recipients } : {}),
    actual,
    live,
    forecast: projected?.forecast ?? null,
    burnPerHour: projected?.burnPerHour ?? null,
    currentPerHour,
    runsOutAt: runsOutAt(live, budget.amount, currentPerHour, now),
    drivers: largestDrivers(resources),
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

/** The budget rule: one finding per figure and threshold crossed. */
export const budgetEvaluator: Evaluator = {
  name: 'budget',
  async evaluate(ctx) {
    const names = new Set(ctx.config.accounts.map((a) => a.name));
    for (const budget of ctx.config.budgets) {
      if (budget.account !== undefined && !names.has(budget.account)) {
        ctx.log.warn(
          { budget: budget.name, account: budget.account },
          'budget names an account that is not configured',
        );
      }
    }
    for (const status of budgetStatus(ctx.db, ctx.config, ctx.now)) ctx.findings.push(...budgetFindings(status));
  },
};
