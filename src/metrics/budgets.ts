import { Gauge } from 'prom-client';
import { collectorsFeeding } from '../collectors/index.js';
import { BUDGET_FIGURES } from '../config/sections/budgets.js';
import { billingDays, billingRecords } from '../db/schema.js';
import { ALL_ACCOUNTS, type BudgetStatus } from '../rules/budget.js';
import { budgetStatus } from '../tick/budget-status.js';
import { gauge } from './account-series.js';
import type { MetricsContext } from './source.js';

type BudgetGauge = Gauge<string>;

/**
 * Every series carries the budget's `account` (`all` for a budget over every account), so a
 * dashboard filtered by account shows the budgets that concern it.
 *
 * Each configured budget's current period from the budget rule's own reading of the database
 * (`budgetStatus`), so the dashboard shows exactly the figures the alerts are made of. On each
 * evaluation tick they are the rule's own reading, handed over in its `budget:evaluated` event
 * (reading them again would cost as much as the rule itself); after each billing run they are
 * read afresh, so the actual matches podwarden_spend_dollars set on the same run.
 */
export function registerBudgetMetrics(context: MetricsContext): void {
  const { registry, source, config } = context;
  const fills: Array<(status: BudgetStatus) => void> = [];
  const gauges: BudgetGauge[] = [];
  const perStatus = (
    name: string,
    help: string,
    labelNames: string[],
    fill: (gauge: BudgetGauge, status: BudgetStatus) => void,
  ) => {
    const created: BudgetGauge = gauge(registry, { name, help, labelNames });
    gauges.push(created);
    fills.push((status) => fill(created, status));
  };

  const info = gauge(registry, {
    name: 'podwarden_budget_info',
    help: 'Always 1: the budget with the account it covers (all for every account), its scope and its period.',
    labelNames: ['budget', 'account', 'scope', 'period'],
  });
  for (const budget of config.budgets) {
    const account = budget.account ?? ALL_ACCOUNTS;
    info.set({ budget: budget.name, account, scope: budget.scope, period: budget.period }, 1);
  }
  perStatus(
    'podwarden_budget_amount_dollars',
    'The amount the budget allows per period.',
    ['budget', 'account'],
    (g, s) => g.set({ budget: s.budget, account: s.account }, s.amount),
  );
  perStatus(
    'podwarden_budget_spend_dollars',
    "The budget's spend in its current period by figure: actual (billed), live (billed plus not yet billed) and forecast (projected to the period's end); forecast is absent until enough billing history is known.",
    ['budget', 'account', 'figure'],
    (g, s) => {
      for (const [figure, value] of figuresOf(s)) g.set({ budget: s.budget, account: s.account, figure }, value);
    },
  );
  perStatus(
    'podwarden_budget_used_ratio',
    "The budget's spend by figure as a share of its amount, 1 meaning all of it; forecast is absent until enough billing history is known.",
    ['budget', 'account', 'figure'],
    (g, s) => {
      for (const [figure, value] of figuresOf(s))
        g.set({ budget: s.budget, account: s.account, figure }, value / s.amount);
    },
  );
  perStatus(
    'podwarden_budget_burn_rate_dollars_per_hour',
    "What the budget's scope spent per hour over the forecast window, billed and not yet billed; absent while there is no forecast.",
    ['budget', 'account'],
    (g, s) => {
      if (s.burnPerHour !== null) g.set({ budget: s.budget, account: s.account }, s.burnPerHour);
    },
  );
  perStatus(
    'podwarden_budget_runout_timestamp_seconds',
    "When the budget's live spend reaches its amount at what its scope costs per hour now, as a Unix time; absent when it already has or never will.",
    ['budget', 'account'],
    (g, s) => {
      if (s.runsOutAt !== null) g.set({ budget: s.budget, account: s.account }, s.runsOutAt / 1000);
    },
  );
  perStatus(
    'podwarden_budget_period_end_timestamp_seconds',
    "When the budget's current period ends and its spend starts again from zero, as a Unix time.",
    ['budget', 'account'],
    (g, s) => g.set({ budget: s.budget, account: s.account }, s.period.endMs / 1000),
  );

  if (config.budgets.length === 0) return;
  let evaluated: { at: number; statuses: readonly BudgetStatus[] } | undefined;
  context.onClose(
    source.events.on('budget:evaluated', (event) => {
      evaluated = event;
    }),
  );
  context.refreshOn(['tick', ...collectorsFeeding(billingDays, billingRecords)], async ({ trigger, now }) => {
    // A tick whose budget rule failed handed nothing over: then the metrics read for themselves.
    const handed = trigger === 'tick' && evaluated?.at === now ? evaluated.statuses : undefined;
    evaluated = undefined;
    const statuses = handed ?? (await budgetStatus(source.db, config, now));
    for (const created of gauges) created.reset();
    for (const status of statuses) for (const fill of fills) fill(status);
  });
}

function figuresOf(status: BudgetStatus): Array<[string, number]> {
  const values: Record<(typeof BUDGET_FIGURES)[number], number | null> = {
    actual: status.actual,
    live: status.live,
    forecast: status.forecast,
  };
  return BUDGET_FIGURES.flatMap((figure) => {
    const value = values[figure];
    return value === null ? [] : [[figure, value] as [string, number]];
  });
}
