import type { AlertRecord } from '../db/alerts.js';

/** What a message says of an alert (messages/view.ts's AlertData). */
export interface AlertFields {
  rule: string;
  account: string;
  severity: string;
  summary: string;
  labels: Record<string, string>;
  details: Record<string, unknown>;
  firedAt: number;
  resolvedAt: number | null;
}

/** An alert as the delivery pipeline sees it: fired, maybe resolved, with its effective recipients. */
export interface NotifyAlert extends AlertFields {
  id: number;
  key: string;
  /** The rule's own recipients, or else the email section's default ones (possibly none). */
  recipients: string[];
}

/** A fired episode, ready for the pipeline; never-fired (pending) episodes are not notified. */
export function toNotifyAlert(record: AlertRecord, defaultRecipients: readonly string[]): NotifyAlert | undefined {
  if (record.firedAt === null) return undefined;
  return {
    id: record.id,
    key: record.key,
    rule: record.rule,
    account: record.account,
    severity: record.severity,
    summary: record.summary,
    labels: record.labels,
    details: record.details,
    recipients: [...(record.recipients ?? defaultRecipients)].sort(),
    firedAt: record.firedAt,
    resolvedAt: record.resolvedAt,
  };
}
