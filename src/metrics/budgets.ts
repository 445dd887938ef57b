import { collectorsFeeding } from '../collectors/index.js';
import { BUDGET_FIGURES } from '../config/sections/budgets.js';
import { billingDays, billingRecords } from '../db/schema.js';
import { ALL_ACCOUNTS, type BudgetStatus } from '../rules/budget.js';
import { budgetStatus } from '../tick/budget-status.js';
import { gauge, gaugeTable } from './account-series.js';
import type { MetricsContext } from './source.js';

/**
 * Each budget's current period as the budget rule reads it, so the dashboard shows the figures
 * the alerts are made of: on a tick the rule's own reading (its `budget:evaluated` event), after
 * a billing run read afresh, so the actual matches podwarden_spend_dollars of the same run.
 */
export function registerBudgetMetrics(context: MetricsContext): void {
  const { registry, source, config } = context;
  const info = gauge(registry, {
    name: 'podwarden_budget_info',
    help: 'Always 1: the budget with the account it covers (all for every account), its scope and its period.',
    labelNames: ['budget', 'account', 'scope', 'period'],
  });
  for (const budget of config.budgets) {
    const account = budget.account ?? ALL_ACCOUNTS;
    info.set({ budget: budget.name, account, scope: budget.scope, period: budget.period }, 1);
  }
  const fill = gaugeTable<BudgetStatus>(registry, [
    {
      name: 'podwarden_budget_amount_dollars',
      help: 'The amount the budget allows per period.',
      labelNames: ['budget', 'account'],
      series: ({ budget, account, amount }, set) => set({ budget, account }, amount),
    },
    {
      name: 'podwarden_budget_spend_dollars',
      help: "The budget's spend in its current period by figure: actual (billed), live (billed plus not yet billed) and forecast (projected to the period's end); forecast is absent until enough billing history is known.",
      labelNames: ['budget', 'account', 'figure'],
      series: ({ budget, account, ...status }, set) => {
        for (const figure of BUDGET_FIGURES)
          if (status[figure] !== null) set({ budget, account, figure }, status[figure]);
      },
    },
    {
      name: 'podwarden_budget_used_ratio',
      help: "The budget's spend by figure as a share of its amount, 1 meaning all of it; forecast is absent until enough billing history is known.",
      labelNames: ['budget', 'account', 'figure'],
      series: ({ budget, account, amount, ...status }, set) => {
        for (const figure of BUDGET_FIGURES) {
          if (status[figure] !== null) set({ budget, account, figure }, status[figure] / amount);
        }
      },
    },
    {
      name: 'podwarden_budget_burn_rate_dollars_per_hour',
      help: "What the budget's scope spent per hour over the forecast window, billed and not yet billed; absent while there is no forecast.",
      labelNames: ['budget', 'account'],
      series: ({ budget, account, burnPerHour }, set) => {
        if (burnPerHour !== null) set({ budget, account }, burnPerHour);
      },
    },
    {
      name: 'podwarden_budget_runout_timestamp_seconds',
      help: "When the budget's live spend reaches its amount at what its scope costs per hour now, as a Unix time; absent when it already has or never will.",
      labelNames: ['budget', 'account'],
      series: ({ budget, account, runsOutAt }, set) => {
        if (runsOutAt !== null) set({ budget, account }, runsOutAt / 1000);
      },
    },
    {
      name: 'podwarden_budget_period_end_timestamp_seconds',
      help: "When the budget's current period ends and its spend starts again from zero, as a Unix time.",
      labelNames: ['budget', 'account'],
      series: ({ budget, account, period }, set) => set({ budget, account }, period.endMs / 1000),
    },
  ]);

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
    fill(handed ?? (await budgetStatus(source.db, config, now)));
  });
}
