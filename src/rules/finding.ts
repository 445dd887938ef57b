/**
 * What a rule concludes, for one thing at one time. Rules return findings (pure functions of
 * data, configuration and `now`); the alert pipeline turns them into alert state and email, and
 * the idle action ladder turns idle findings into warnings and stops.
 */
export type RuleName = 'budget' | 'idle' | 'enforce' | 'capacity' | 'waste' | 'health';

export interface Finding {
  rule: RuleName;
  /** Stable identity of the alert this finding feeds, e.g. `idle:sim:pod-1`, `budget:sim:monthly:80`. */
  key: string;
  account: string;
  severity: 'info' | 'warning' | 'critical';
  /** One line that says what happened and how much; email subjects are made from it. */
  summary: string;
  /** Label set for grouping, silences and inhibition: always `rule` and `account`, then the rule's own (`pod_id`, `budget`, `threshold`...). */
  labels: Record<string, string>;
  /** The figures behind the finding, for the email body, receipts and /api/status. */
  details: Record<string, unknown>;
  /** Recipients for this finding's rule, when configured per rule; otherwise the default ones. */
  recipients?: string[];
  /**
   * The label that names which occurrence of the condition this is (an idle spell's warning
   * names its spell): when it differs from the open alert's, that alert resolves and a new one
   * opens under the same key, so the new occurrence is announced by a message of its own.
   */
  occurrenceLabel?: string;
}
