import type { Config } from '../../config/schema.js';
import type { BudgetConfig } from '../../config/sections/budgets.js';
import type { PodRecord } from '../../db/pods.js';
import { budgetStatuses } from '../../rules/budget.js';
import { type CapPod, capPlans } from '../../rules/budget-cap.js';
import { podVolumePerHour } from '../../rules/prices.js';
import { inScope } from '../../rules/spend.js';
import { savingPerHr } from '../saving.js';
import type { ControlInput, ControlOutput, EnforceControl, StopCandidate } from './candidate.js';
import { exclusionFor } from './select.js';

/**
 * Budget caps (`budgets[].onSpent.action: stop`): when a budget's live figure reaches its
 * threshold, the running Pods of its scope are stopped, most expensive first, until the rate left
 * fits what is left of the amount (rules/budget-cap.ts). The occurrence is the budget's period,
 * so a Pod is stopped at most once per period; Keep running is a snooze the guards respect.
 */
export const budgetCapControl: EnforceControl = {
  kind: 'budget_cap',
  enabled: (config) => cappedBudgets(config).length > 0,
  candidates(input, account): ControlOutput {
    const output: ControlOutput = { candidates: [], findings: [] };
    const budgets = cappedBudgets(input.config).filter((b) => b.account === undefined || b.account === account);
    if (budgets.length === 0 || !input.snapshots.has(account)) return output;
    // Only the capped budgets are judged: the same figures the budget rule reads this tick.
    const statuses = budgetStatuses({ ...input.config, budgets }, input.budgets, input.now);
    for (const [index, budget] of budgets.entries()) {
      const status = statuses[index];
      const onSpent = budget.onSpent;
      if (!status || !onSpent) continue;
      const pods = scopePods(input, budget);
      const byId = new Map(pods.map(({ pod, account: owner }) => [pod.podId, { pod, owner }]));
      const capPods = pods.map(({ pod }) => capPod(budget, pod));
      for (const plan of capPlans(status, onSpent, capPods, input.now)) {
        const found = byId.get(plan.pod.podId);
        if (!found || found.owner !== account) continue;
        output.candidates.push(candidate(budget, found.pod, plan));
      }
    }
    return output;
  },
};

function cappedBudgets(config: Config): BudgetConfig[] {
  return config.budgets.filter((budget) => budget.onSpent?.action === 'stop');
}

/**
 * The running Pods whose spend the budget counts, in every account it covers. Members of an
 * instant cluster are left out: their spend is the cluster's, and a cluster is not stopped a Pod
 * at a time.
 */
function scopePods(input: ControlInput, budget: BudgetConfig): Array<{ account: string; pod: PodRecord }> {
  const pods: Array<{ account: string; pod: PodRecord }> = [];
  for (const [account, snapshot] of input.snapshots) {
    if (budget.account !== undefined && budget.account !== account) continue;
    for (const pod of snapshot.pods) {
      if (pod.status !== 'RUNNING' || pod.clusterId !== null) continue;
      if (budget.scope === 'pods' && !inScope(budget, { resourceId: pod.podId, name: pod.name })) continue;
      pods.push({ account, pod });
    }
  }
  return pods;
}

/** A Pod locked in RunPod, or opted out by its env, is never stopped: the cap passes on to the next. */
function capPod(budget: BudgetConfig, pod: PodRecord): CapPod {
  return {
    podId: pod.podId,
    name: pod.name,
    perHour: pod.costPerHr + podVolumePerHour(pod.volumeGb, pod.status),
    savingPerHr: savingPerHr(pod),
    stoppable: pod.locked !== 1 && exclusionOf(budget, pod) === null,
  };
}

const exclusionOf = (budget: BudgetConfig, pod: PodRecord) =>
  exclusionFor({ name: budget.name, exclude: { podIds: [], names: [] } }, 'budget', pod);

function candidate(budget: BudgetConfig, pod: PodRecord, plan: ReturnType<typeof capPlans>[number]): StopCandidate {
  const onSpent = budget.onSpent as NonNullable<BudgetConfig['onSpent']>;
  return {
    pod,
    kind: 'budget_cap',
    occurrence: plan.occurrence,
    stopAt: plan.stopAt,
    warnLeadMs: onSpent.warnLeadMs,
    dryRun: onSpent.dryRun,
    control: budget.name,
    why: plan.why,
    excluded: exclusionOf(budget, pod),
    // Keep running on a cap is a snooze: the money is spent either way, a later stop time would not make it fit.
    extendByMs: null,
  };
}
