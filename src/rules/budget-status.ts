import type { BudgetFigure, BudgetScope } from '../config/sections/budgets.js';
import type { Period } from './period.js';
import type { ResourceCost } from './spend.js';

/**
 * What a budget's status is made of, shared by the rule that computes it (budget.ts) and the
 * findings made of it (budget-findings.ts), so imports run one way: both depend on this file.
 */

/** The account label of a budget over every configured account. */
export const ALL_ACCOUNTS = 'all';

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
  /** The team and owner the budget counts the resources of, when it chooses by them. */
  team?: string;
  owner?: string;
  period: Period;
  /** The period's length in words, and the zone its days are counted in. */
  periodKind: 'day' | 'week' | 'month';
  timeZone: string;
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
  /** How much history the burn rate rests on (at most the configured window); null with forecast. */
  burnWindowMs: number | null;
  /** USD per hour the scope costs now. */
  currentPerHour: number;
  /** Live plus the current rate until the period's end: the other end of the forecast's range. */
  forecastAtCurrentRate: number;
  /** When live spend reaches the amount at the current rate; null if it has or never will. */
  runsOutAt: number | null;
  drivers: CostDriver[];
  /** The `now` these figures are for. */
  evaluatedAt: number;
}
