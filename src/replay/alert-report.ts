import { toIso } from '../clock.js';
import { alertsChangedBetween } from '../db/alerts.js';
import { outboxMessagesBetween } from '../db/notifications.js';
import type { Database } from '../db/open.js';
import type { ReplayReport } from './report.js';

/** Every firing and resolved transition in [from, to), in time order. */
export function reportedAlerts(database: Database, from: number, to: number): ReplayReport['alerts'] {
  const transitions: Array<ReplayReport['alerts'][number] & { ms: number }> = [];
  for (const alert of alertsChangedBetween(database, from, to)) {
    const rule = alert.rule as ReplayReport['alerts'][number]['rule'];
    if (alert.firedAt !== null && alert.firedAt >= from && alert.firedAt < to) {
      transitions.push({ ms: alert.firedAt, at: toIso(alert.firedAt), rule, key: alert.key, state: 'firing' });
    }
    if (alert.resolvedAt !== null && alert.resolvedAt >= from && alert.resolvedAt < to) {
      transitions.push({ ms: alert.resolvedAt, at: toIso(alert.resolvedAt), rule, key: alert.key, state: 'resolved' });
    }
  }
  return transitions.sort((a, b) => a.ms - b.ms).map(({ ms: _, ...transition }) => transition);
}

/**
 * Every email written in [from, to): when it went out (or, not delivered, when it was written),
 * to whom and its subject. `delivered` is false for a message still in the outbox, as every
 * message is when no email host is configured.
 */
export function reportedEmails(database: Database, from: number, to: number): ReplayReport['emails'] {
  return outboxMessagesBetween(database, from, to).map((message) => ({
    at: toIso(message.sentAt ?? message.createdAt),
    to: message.to,
    subject: message.subject,
    delivered: message.sentAt !== null,
    reason: message.reason,
    alertKeys: message.alertKeys,
  }));
}
