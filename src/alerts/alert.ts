import { withDetailsOf } from '../db/alert-rows.js';
import type { AlertRecord } from '../db/alerts.js';
import type { AlertData } from '../messages/view.js';

/** An alert as the delivery pipeline sees it: fired, maybe resolved, with its effective recipients. */
export interface NotifyAlert extends AlertData {
  id: number;
  key: string;
  /** The rule's own recipients, or else the email section's default ones (possibly none). */
  recipients: string[];
}

/** A fired episode, ready for the pipeline; never-fired (pending) episodes are not notified. */
export function toNotifyAlert(record: AlertRecord, defaultRecipients: readonly string[]): NotifyAlert | undefined {
  if (record.firedAt === null) return undefined;
  // Its details are parsed when something reads them: the pipeline reads them only for the
  // alerts of a message it writes, and every tick sees each alert's details rewritten.
  const alert = {
    id: record.id,
    key: record.key,
    rule: record.rule,
    account: record.account,
    severity: record.severity,
    summary: record.summary,
    labels: record.labels,
    // Keeps its place among the keys; withDetailsOf gives it its value.
    details: {},
    recipients: [...(record.recipients ?? defaultRecipients)].sort(),
    firedAt: record.firedAt,
    resolvedAt: record.resolvedAt,
  };
  return withDetailsOf(alert, record);
}
