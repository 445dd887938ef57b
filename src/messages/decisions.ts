import type { DecisionSource } from '../db/schema.js';
import { formatDateTime } from '../format.js';

/**
 * The snoozes and silences people made that still hold, wherever they made them (command line,
 * emailed link, status page): /api/status lists them and the digest mentions them, so a decision
 * taken from a phone is as visible as one taken on the host.
 */
export interface HeldDecision {
  kind: 'snooze' | 'silence';
  /** The Pod's account; for a silence, its `account=` matcher's value, or null when it has none. */
  account: string | null;
  /** The Pod id, or the silence's matchers (`rule=idle pod_id=nb`). */
  subject: string;
  /** The Pod's name when known. */
  name: string | null;
  until: number;
  createdAt: number;
  source: DecisionSource;
  /** The recipient(s) of the emailed link, the silence's author; null when unknown. */
  createdBy: string | null;
}

/** Where a snooze or silence was made, as a phrase: "from an emailed link (ana@example.com)". */
export function describeSource(source: DecisionSource, createdBy: string | null): string {
  switch (source) {
    case 'email link':
      return `from an emailed link${createdBy ? ` (${createdBy})` : ''}`;
    case 'status page':
      return `from the status page${createdBy ? ` (${createdBy})` : ''}`;
    case 'command':
      return createdBy ? `from the command line (${createdBy})` : 'from the command line';
  }
}

/** One line of the digest's "kept running and silenced" list. */
export function describeHeld(decision: HeldDecision, timeZone: string): string {
  const until = formatDateTime(decision.until, timeZone);
  const source = describeSource(decision.source, decision.createdBy);
  if (decision.kind === 'snooze') {
    const pod =
      decision.name && decision.name !== decision.subject ? `${decision.name} (${decision.subject})` : decision.subject;
    return `${pod} kept running until ${until}, ${source}`;
  }
  return `Alerts matching ${decision.subject} silenced until ${until}, ${source}`;
}
