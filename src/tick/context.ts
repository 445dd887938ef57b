import type { ActionContext, ActionEvents } from '../actions/context.js';
import type { NotificationContext, NotificationEvents } from '../channels/context.js';
import type { EventSink } from '../events.js';
import type { BudgetInputs } from '../rules/budget.js';
import type { BudgetStatus } from '../rules/budget-status.js';
import type { Finding, RuleName } from '../rules/finding.js';
import type { Unjudged } from '../rules/unjudged.js';

/** Events that a tick's steps emit, for tests (`await events.next('action:stopped')`) and metrics. */
export interface EvaluationEvents extends ActionEvents, NotificationEvents {
  /** The budget rule's reading of every budget at the tick's `at`: the metrics show it as read. */
  'budget:evaluated': { at: number; statuses: readonly BudgetStatus[] };
}

/**
 * Everything one evaluation tick may use. `now` is read once per tick and shared by every
 * step, so rules, alerts and actions agree on the time; `snapshots` is read once at its start.
 */
export interface EvaluationContext extends NotificationContext, ActionContext {
  events: EventSink<EvaluationEvents>;
  /** What the budget rule reads (billing across accounts), read with the snapshots. */
  budgets: BudgetInputs;
  /**
   * This tick's findings: each rule step appends what its rule returns, and the alert pipeline,
   * last in the tick, turns the whole list into alert state (a key absent this tick resolves).
   */
  findings: Finding[];
  /**
   * What the rules could not judge this tick (stale or missing Pod data, a failed step, a Pod
   * missing from one poll). An open alert matched here keeps its state: unknown is not resolved.
   */
  unjudged: Unjudged[];
}

/**
 * One step of the evaluation tick, run in registry order after the snapshot is read: rules that
 * produce findings, the idle action ladder, the alert pipeline and its outbox. A failing step is
 * logged and the others still run.
 */
export interface Evaluator {
  readonly name: string;
  /**
   * The rules whose alerts this step judges (default: the rule of its own name): when it fails,
   * their alerts are unjudged for the tick.
   */
  readonly judges?: readonly RuleName[];
  evaluate(ctx: EvaluationContext): Promise<void>;
}
