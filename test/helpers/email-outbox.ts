import { queueRow } from '../../src/db/channel-outbox.js';
import {
  type OutboxCounts,
  type OutboxRecord,
  outboxCountsByAccount,
  toEmailRecord,
} from '../../src/db/notifications.js';
import type { Database } from '../../src/db/open.js';

/** Writes an email to the outbox as the pipeline would (tests set up their messages with it). */
export async function insertOutbox(
  database: Database,
  message: Omit<
    OutboxRecord,
    'id' | 'attempts' | 'leaseUntil' | 'lastError' | 'sentAt' | 'smtpResponse' | 'abandonedAt'
  >,
): Promise<OutboxRecord> {
  const { messageId, to, subject, text, html, ...row } = message;
  return toEmailRecord(
    queueRow(database, { ...row, channel: 'email', payload: { messageId, to, subject, text, html } }),
  );
}

/** The email outbox's counts over every account, summed from the per-account counts the metrics read. */
export async function outboxCounts(database: Database): Promise<OutboxCounts> {
  const total: OutboxCounts = { pending: 0, sent: 0, abandoned: 0, oldestPendingAt: null };
  for (const counts of await outboxCountsByAccount(database)) {
    total.pending += counts.pending;
    total.sent += counts.sent;
    total.abandoned += counts.abandoned;
    if (counts.oldestPendingAt !== null)
      total.oldestPendingAt = Math.min(total.oldestPendingAt ?? counts.oldestPendingAt, counts.oldestPendingAt);
  }
  return total;
}
