import {
  type AlertRecord,
  insertAlert,
  markAlertAbsent,
  markAlertFired,
  markAlertResolved,
  type OpenAlertState,
  openAlertStates,
  refreshAlert,
} from '../db/alerts.js';
import type { Database } from '../db/open.js';
import type { Finding } from '../rules/finding.js';
import { isUnjudged, type Unjudged } from '../rules/unjudged.js';
import { noteFire, noteResolve, settleFlaps } from './flapping.js';
import type { AlertSettings } from './settings.js';

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

export type StateSettings = Pick<AlertSettings, 'forMs' | 'resolveAfterMs' | 'flapping'>;

/**
 * Folds one tick's findings into alert state, in one transaction. For each open episode:
 *
 * - reported this tick: its wording and figures are written to its row (the only copy of them);
 *   pending long enough (`for`), it fires;
 * - within what the rules could not judge (`unjudged`): nothing changes. Unknown is not resolved;
 * - judged absent: a pending episode ends; a firing one resolves once it has been judged absent
 *   for `resolveAfter` (ticks in between that could not judge neither count nor reset).
 *
 * A key reported for the first time opens a pending episode (firing at once without `for`), and
 * so does a finding that names another occurrence (`occurrenceLabel`) than its open episode's,
 * which resolves that one.
 * Every fire and resolve feeds flap detection. Running it twice at the same `now` changes nothing
 * the second time.
 */
export function recordFindings(
  database: Database,
  findings: readonly Finding[],
  now: number,
  settings: StateSettings,
  unjudged: readonly Unjudged[] = [],
): Transition[] {
  const latest = new Map(findings.map((finding) => [finding.key, finding]));
  const transitions: Transition[] = [];
  const note = (alert: Pick<OpenAlertState, 'key' | 'rule'>, state: AlertState) =>
    transitions.push({ at: now, key: alert.key, rule: alert.rule, state });
  database.transaction(() => {
    settleFlaps(database, now, settings.flapping);
    const open = new Map(openAlertStates(database).map((alert) => [alert.key, alert]));
    for (const alert of open.values()) {
      const finding = latest.get(alert.key);
      if (!finding) {
        if (unjudged.length > 0 && isUnjudged(JSON.parse(alert.labels), unjudged)) continue;
        if (alert.firedAt === null) {
          markAlertResolved(database, alert.id, now);
          continue;
        }
        const absentSince = alert.absentSince ?? now;
        if (alert.absentSince === null) markAlertAbsent(database, alert.id, now);
        if (now - absentSince < settings.resolveAfterMs(alert.rule)) continue;
        markAlertResolved(database, alert.id, now);
        noteResolve(database, alert.key, now);
        note(alert, 'resolved');
        continue;
      }
      if (isNewOccurrence(finding, alert)) {
        // The open alert was about an earlier occurrence: it ends here, and the loop below opens
        // the new one (a new id, so the pipeline announces it as a new alert).
        markAlertResolved(database, alert.id, now);
        if (alert.firedAt !== null) {
          noteResolve(database, alert.key, now);
          note(alert, 'resolved');
        }
        open.delete(alert.key);
        continue;
      }
      refreshAlert(database, alert.id, fieldsOf(finding, now));
      if (alert.firedAt === null && now - alert.activeSince >= settings.forMs(finding.rule)) {
        markAlertFired(database, alert.id, now);
        noteFire(database, alert, now, settings.flapping);
        note(alert, 'firing');
      }
    }
    for (const finding of latest.values()) {
      if (open.has(finding.key)) continue;
      const fires = settings.forMs(finding.rule) <= 0;
      insertAlert(database, {
        key: finding.key,
        rule: finding.rule,
        account: finding.account,
        ...fieldsOf(finding, now),
        activeSince: now,
        firedAt: fires ? now : null,
      });
      if (fires) noteFire(database, finding, now, settings.flapping);
      note(finding, fires ? 'firing' : 'pending');
    }
  });
  return transitions;
}

/** Whether the finding names another occurrence than the open alert's (its labels are JSON text). */
function isNewOccurrence(finding: Finding, alert: Pick<OpenAlertState, 'labels'>): boolean {
  const name = finding.occurrenceLabel;
  if (name === undefined) return false;
  const stored = (JSON.parse(alert.labels) as Record<string, string>)[name];
  return stored !== finding.labels[name];
}

function fieldsOf(
  finding: Finding,
  now: number,
): Pick<AlertRecord, 'severity' | 'summary' | 'labels' | 'details' | 'recipients' | 'lastSeenAt'> {
  return {
    severity: finding.severity,
    summary: finding.summary,
    labels: { ...finding.labels, rule: finding.rule, account: finding.account },
    details: finding.details,
    recipients: finding.recipients ?? null,
    lastSeenAt: now,
  };
}
