import type { HeldDecision } from '../alerts/notices.js';
import type { DecisionSource } from '../db/schema.js';
import { formatDateTime } from '../format.js';

const SOURCE_WORDS: Record<DecisionSource, string> = {
  'email link': 'an emailed link',
  'status page': 'the status page',
  command: 'the command line',
};

/** Where a snooze or silence was made, as a phrase: "from an emailed link (ana@example.com)". */
export function describeSource(source: DecisionSource, createdBy: string | null): string {
  return `from ${SOURCE_WORDS[source]}${createdBy ? ` (${createdBy})` : ''}`;
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
