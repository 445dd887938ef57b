import {
  type AlertRecord,
  insertAlert,
  markAlertFired,
  markAlertResolved,
  openAlerts,
  refreshAlert,
} from '../db/alerts.js';
import type { Database } from '../db/open.js';
import type { Finding, RuleName } from '../rules/finding.js';

export type AlertState = 'pending' | 'firing' | 'resolved';

/** An alert's state, read from its timestamps (never stored as a status). */
export function alertState(alert: Pick<AlertRecord, 'firedAt' | 'resolvedAt'>, now: number): AlertState {
  if (alert.resolvedAt !== null && alert.resolvedAt <= now) return 'resolved';
  return alert.firedAt !== null && alert.firedAt <= now ? 'firing' : 'pending';
}

export interface Transition {
  at: number;
  key: string;
  rule: string;
  state: AlertState;
}

/**
 * Folds one tick's findings into alert state, in one transaction: a new key opens a pending
 * episode (firing at once when its rule has no `for`), a key seen long enough fires, and an open
 * episode whose key no rule reported this tick resolves (unless `resolveAbsent` is false: a
 * tick in which a rule failed has missing findings, not gone ones). Returns the transitions.
 * Running it twice at the same `now` changes nothing the second time.
 */
export function recordFindings(
  database: Database,
  findings: readonly Finding[],
  now: number,
  forMs: (rule: RuleName) => number,
  options: { resolveAbsent: boolean } = { resolveAbsent: true },
): Transition[] {
  const latest = new Map(findings.map((finding) => [finding.key, finding]));
  const transitions: Transition[] = [];
  const note = (alert: Pick<AlertRecord, 'key' | 'rule'>, state: AlertState) =>
    transitions.push({ at: now, key: alert.key, rule: alert.rule, state });
  database.transaction(() => {
    const open = new Map(openAlerts(database).map((alert) => [alert.key, alert]));
    for (const alert of open.values()) {
      const finding = latest.get(alert.key);
      if (!finding) {
        if (!options.resolveAbsent) continue;
        markAlertResolved(database, alert.id, now);
        if (alert.firedAt !== null) note(alert, 'resolved');
        continue;
      }
      refreshAlert(database, alert.id, { ...fieldsOf(finding), lastSeenAt: now });
      if (alert.firedAt === null && now - alert.activeSince >= forMs(finding.rule)) {
        markAlertFired(database, alert.id, now);
        note(alert, 'firing');
      }
    }
    for (const finding of latest.values()) {
      if (open.has(finding.key)) continue;
      const fires = forMs(finding.rule) <= 0;
      insertAlert(database, {
        key: finding.key,
        rule: finding.rule,
        account: finding.account,
        ...fieldsOf(finding),
        activeSince: now,
        lastSeenAt: now,
        firedAt: fires ? now : null,
      });
      note(finding, fires ? 'firing' : 'pending');
    }
  });
  return transitions;
}

function fieldsOf(finding: Finding): Pick<AlertRecord, 'severity' | 'summary' | 'labels' | 'details' | 'recipients'> {
  return {
    severity: finding.severity,
    summary: finding.summary,
    labels: { ...finding.labels, rule: finding.rule, account: finding.account },
    details: finding.details,
    recipients: finding.recipients ?? null,
  };
}
