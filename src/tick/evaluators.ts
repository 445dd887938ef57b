import { runEnforceLadder } from '../actions/enforce/ladder.js';
import { runIdleLadder } from '../actions/idle-evaluator.js';
import { runNotifications } from '../channels/evaluator.js';
import { budgetStatuses } from '../rules/budget.js';
import { budgetFindings } from '../rules/budget-findings.js';
import { capacityFindings } from '../rules/capacity.js';
import { wasteFindings } from '../rules/waste.js';
import type { Evaluator } from './context.js';

/** The budget rule: one finding per figure and threshold crossed; the metrics take its reading. */
const budgetEvaluator: Evaluator = {
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
    const statuses = budgetStatuses(ctx.config, ctx.budgets, ctx.now);
    for (const status of statuses) ctx.findings.push(...budgetFindings(status));
    ctx.events.emit('budget:evaluated', { at: ctx.now, statuses });
  },
};

/** The capacity rule: changes of the watched GPU types' availability and prices. */
const capacityEvaluator: Evaluator = {
  name: 'capacity',
  async evaluate(ctx) {
    ctx.findings.push(...capacityFindings(ctx.snapshots, ctx.config));
  },
};

/** The waste rule: money spent on nothing, in every account. */
const wasteEvaluator: Evaluator = {
  name: 'waste',
  async evaluate(ctx) {
    ctx.findings.push(...wasteFindings(ctx.snapshots, ctx.config, ctx.now));
  },
};

/** The idle action ladder: judges every Pod of the snapshot, warns, stops through the guards. */
const idleEvaluator: Evaluator = { name: 'idle', evaluate: runIdleLadder };

/** The enforcement ladder: deadlines, schedules and budget caps warn, then stop through the guards. */
const enforceEvaluator: Evaluator = { name: 'enforce', evaluate: (ctx) => runEnforceLadder(ctx) };

/** Last: turns every finding of the tick into alert state and notifications. */
const alertsEvaluator: Evaluator = { name: 'alerts', evaluate: runNotifications };

/**
 * The evaluation tick, in order: rules that produce findings first, then what acts on them.
 * Add new steps where their inputs are ready.
 */
export const evaluators: readonly Evaluator[] = [
  budgetEvaluator,
  capacityEvaluator,
  wasteEvaluator,
  idleEvaluator,
  enforceEvaluator,
  alertsEvaluator,
];
