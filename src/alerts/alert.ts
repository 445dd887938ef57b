import type { AlertRecord } from '../db/alerts.js';

/** An alert as the delivery pipeline sees it: fired, maybe resolved, with its effective recipients. */
export type NotifyAlert = Omit<AlertRecord, 'activeSince' | 'lastSeenAt' | 'absentSince' | 'firedAt' | 'recipients'> & {
  firedAt: number;
  /** The rule's own recipients, or else the email section's default ones (possibly none). */
  recipients: string[];
};

/** What a message says of an alert (messages/view.ts's AlertData). */
export type AlertFields = Omit<NotifyAlert, 'id' | 'key' | 'recipients'>;

/** A fired episode, ready for the pipeline; never-fired (pending) episodes are not notified. */
export function toNotifyAlert(record: AlertRecord, defaultRecipients: readonly string[]): NotifyAlert | undefined {
  if (record.firedAt === null) return undefined;
  // Key order as in the record: recipients and firedAt keep their places.
  const { activeSince, lastSeenAt, absentSince, ...alert } = record;
  return { ...alert, recipients: [...(record.recipients ?? defaultRecipients)].sort(), firedAt: record.firedAt };
}
