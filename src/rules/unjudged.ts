import type { RuleName } from './finding.js';

/**
 * Alert subjects a rule could not judge this tick: every alert whose labels include all of
 * `labels` (always `rule`, then `account`, `pod_id`... as narrow as the rule knows). An open
 * alert matched here keeps its state: unknown is not resolved.
 */
export interface Unjudged {
  labels: { rule: RuleName } & Record<string, string>;
  /** Why, in words, for logs and tests: "Pod data stale", "evaluator budget failed". */
  reason: string;
}

/** Every rule whose alerts a tick judges. */
export const RULE_NAMES: readonly RuleName[] = ['budget', 'idle', 'enforce', 'capacity', 'waste', 'health'];

/** Whether an alert with these labels lies within what the tick could not judge. */
export function isUnjudged(labels: Readonly<Record<string, string>>, unjudged: readonly Unjudged[]): boolean {
  return unjudged.some((scope) => Object.entries(scope.labels).every(([name, value]) => labels[name] === value));
}
