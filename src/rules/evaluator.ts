import type { ApiClient } from '../api/index.js';
import type { Mailer } from '../channels/email-smtp.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/open.js';
import type { EventSink } from '../events.js';
import type { Logger } from '../log.js';
import type { CommandLine } from '../messages/commands.js';
import type { InflightCounter } from '../scheduler/inflight.js';
import type { BudgetStatus } from './budget-status.js';
import type { Finding, RuleName } from './finding.js';

export interface AlertmanagerDelivery {
  at: number;
  alertmanager: string;
  account: string;
  alerts: number;
}

/** Events that evaluators emit, for tests (`await events.next('action:stopped')`) and metrics. */
export interface EvaluationEvents extends Record<string, unknown> {
  'alert:state': { at: number; key: string; rule: string; state: 'pending' | 'firing' | 'resolved' };
  'alert:sent': { at: number; messageId: string; to: string[]; subject: string };
  /**
   * `held`: the guards that failed, with their reasons (a blocked stop's; empty otherwise);
   * `reason`: the receipt's own (why a planned stop was cancelled, for one), or null.
   */
  'action:decided': {
    at: number;
    podId: string;
    account: string;
    decision: string;
    dryRun: boolean;
    held: ReadonlyArray<{ guard: string; detail: string }>;
    reason: string | null;
  };
  /** A batch of `alerts` alerts of `account` reached an Alertmanager, or did not (they stay queued). */
  'alertmanager:sent': AlertmanagerDelivery;
  'alertmanager:failed': AlertmanagerDelivery;
  /**
   * The budget rule's reading of every budget at the tick's `at`: the metrics show these figures
   * instead of computing them a second time (the rule's reading is the costly part of a tick).
   */
  'budget:evaluated': { at: number; statuses: readonly BudgetStatus[] };
}

/**
 * Everything one evaluation tick may use. `now` is read once per tick and shared by every
 * evaluator, so rules, alerts and actions agree on the time.
 */
export interface EvaluationContext {
  config: Config;
  db: Database;
  clock: Clock;
  now: number;
  log: Logger;
  signal: AbortSignal;
  /** The API client of each configured account (only actions/ may change cloud state with it). */
  apis: ReadonlyMap<string, ApiClient>;
  events: EventSink<EvaluationEvents>;
  /** How the commands quoted in messages run this podwarden (program, `--config`). */
  commandLine: CommandLine;
  /** Counts real I/O (SMTP sends) so a virtual-time loop does not move time under it. */
  inflight?: InflightCounter;
  /**
   * The mailer the outbox sends through, kept open by its owner (a replay's); by default each
   * tick with mail due opens one for the email section and closes it after.
   */
  mailer?: Mailer;
  /**
   * This tick's findings: rule evaluators append what they conclude, and the alert pipeline,
   * last in the tick, turns the whole list into alert state (a key absent this tick resolves).
   */
  findings: Finding[];
  /**
   * What the rules could not judge this tick (stale or missing Pod data, a failed evaluator, a
   * Pod missing from one poll). An open alert matched here keeps its state: unknown is not
   * resolved. Rules append to it as they append findings, per subject, so an evaluator that
   * judges Pod by Pod reports per Pod.
   */
  unjudged: Unjudged[];
}

/**
 * Alert subjects a rule could not judge this tick: every alert whose labels include all of
 * `labels` (always `rule`, then `account`, `pod_id`... as narrow as the rule knows).
 */
export interface Unjudged {
  labels: { rule: RuleName } & Record<string, string>;
  /** Why, in words, for logs and tests: "Pod data stale", "evaluator budget failed". */
  reason: string;
}

const RULE_NAMES: readonly string[] = ['budget', 'idle', 'capacity', 'waste', 'health'] satisfies RuleName[];

/** What a failed evaluator leaves unjudged: every alert of the rules it judges. */
export function unjudgedByFailure(evaluator: Evaluator): Unjudged[] {
  const rules = evaluator.judges ?? (RULE_NAMES.includes(evaluator.name) ? [evaluator.name as RuleName] : []);
  return rules.map((rule) => ({ labels: { rule }, reason: `evaluator ${evaluator.name} failed` }));
}

/** Whether an alert with these labels lies within what the tick could not judge. */
export function isUnjudged(labels: Readonly<Record<string, string>>, unjudged: readonly Unjudged[]): boolean {
  return unjudged.some((scope) => Object.entries(scope.labels).every(([name, value]) => labels[name] === value));
}

/**
 * One step of the evaluation tick, run in registry order after data is collected: rules that
 * produce findings, the idle action ladder, the alert pipeline and its email outbox. A failing
 * evaluator is logged and the others still run.
 */
export interface Evaluator {
  readonly name: string;
  /**
   * The rules whose alerts this evaluator judges (default: the rule of its own name): when it
   * fails, their alerts are unjudged for the tick.
   */
  readonly judges?: readonly RuleName[];
  evaluate(ctx: EvaluationContext): Promise<void>;
}
