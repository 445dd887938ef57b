import { toIso } from '../clock.js';
import { alertsChangedBetween } from '../db/alerts.js';
import { outboxMessagesBetween } from '../db/notifications.js';
import type { Database } from '../db/open.js';
import type { StopDecision } from '../db/receipts.js';
import { podOutcomes, type ReplayReport, type ReportedAccount, type ReportedEmail } from './report.js';

/** Every firing and resolved transition in [from, to), in time order. */
export async function reportedAlerts(database: Database, from: number, to: number): Promise<ReplayReport['alerts']> {
  const transitions: Array<ReplayReport['alerts'][number] & { ms: number }> = [];
  for (const alert of await alertsChangedBetween(database, from, to)) {
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
export async function reportedEmails(
  database: Database,
  from: number,
  to: number,
): Promise<Array<ReportedEmail & { account: string }>> {
  return (await outboxMessagesBetween(database, from, to)).map((message) => ({
    account: message.account,
    at: toIso(message.sentAt ?? message.createdAt),
    to: message.to,
    subject: message.subject,
    delivered: message.sentAt !== null,
    reason: message.reason,
    alertKeys: message.alertKeys,
  }));
}

/**
 * The report of each account, in the configuration's order; `podStatuses[i]` is the final
 * status of each Pod in the world `accounts[i]` played.
 */
export function reportedAccounts(
  accounts: ReadonlyArray<{ name: string }>,
  podStatuses: ReadonlyArray<Record<string, string>>,
  stops: readonly StopDecision[],
  emails: ReadonlyArray<ReportedEmail & { account: string }>,
): ReportedAccount[] {
  const known = new Set(accounts.map((account) => account.name));
  // A message about alerts of several accounts is stored under `all`; anything not of one
  // replayed account is kept there too, so no message drops out of the report.
  const accountOf = (account: string) => (known.has(account) ? account : 'all');
  const of = (name: string) => ({
    emails: emails.filter((email) => accountOf(email.account) === name).map(({ account: _account, ...email }) => email),
    stops: stops
      .filter((stop) => accountOf(stop.account) === name)
      .map(({ at, podId, dryRun }) => ({ at: toIso(at), podId, dryRun })),
  });
  const reported = accounts.map((account, index) => ({
    name: account.name,
    ...of(account.name),
    pods: podOutcomes(podStatuses[index] ?? {}),
  }));
  const spanning = of('all');
  return spanning.emails.length + spanning.stops.length > 0 && !known.has('all')
    ? [...reported, { name: 'all', ...spanning, pods: [] }]
    : reported;
}
