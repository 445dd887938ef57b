import { type OutboxCounts, outboxCountsByAccount } from '../../src/db/notifications.js';
import type { Database } from '../../src/db/open.js';

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
