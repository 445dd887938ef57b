import type { AlertRecord, OpenAlertState } from '../db/alerts.js';
import { type AlertChange, type AlertFields, applyAlertChanges, readAlertStates } from '../db/alerts.js';
import type { Database } from '../db/open.js';
import type { Finding } from '../rules/finding.js';
import { isUnjudged, type Unjudged } from '../rules/unjudged.js';
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
 * Folds one tick's findings into alert state (planAlertChanges says how), written in one
 * transaction. Planned again on what is stored then when another writer changed which episodes
 * are open or fired between the read and the write. Running it twice at the same `now` changes
 * nothing the second time.
 */
export async function recordFindings(
  database: Database,
  findings: readonly Finding[],
  now: number,
  settings: StateSettings,
  unjudged: readonly Unjudged[] = [],
): Promise<Transition[]> {
  for (;;) {
    const { version, open } = await readAlertStates(database);
    const { changes, transitions } = planAlertChanges(open, findings, now, settings, unjudged);
    if (await applyAlertChanges(database, version, changes, now, settings.flapping)) return transitions;
  }
}

/**
 * The changes one tick's findings make to the open episodes. For each open episode:
 *
 * - reported this tick: its wording and figures are written to its row (the only copy of them);
 *   pending long enough (`for`), it fires;
 * - within what the rules could not judge (`unjudged`): nothing changes. Unknown is not resolved;
 * - judged absent: a pending episode ends; a firing one resolves once it has been judged absent
 *   for `resolveAfter` (ticks in between that could not judge neither count nor reset).
 *
 * A key reported for the first time opens a pending episode (firing at once without `for`), and
 * so does a finding that names another occurrence (`occurrenceLabel`) than its open episode's,
 * which resolves that one. Every fire and resolve feeds flap detection (db/alert-changes.ts).
 */
export function planAlertChanges(
  openStates: readonly OpenAlertState[],
  findings: readonly Finding[],
  now: number,
  settings: StateSettings,
  unjudged: readonly Unjudged[],
): { changes: AlertChange[]; transitions: Transition[] } {
  const latest = new Map(findings.map((finding) => [finding.key, finding]));
  const changes: AlertChange[] = [];
  const transitions: Transition[] = [];
  const note = (alert: Pick<OpenAlertState, 'key' | 'rule'>, state: AlertState) =>
    transitions.push({ at: now, key: alert.key, rule: alert.rule, state });
  const open = new Map(openStates.map((alert) => [alert.key, alert]));
  for (const alert of open.values()) {
    const finding = latest.get(alert.key);
    const fired = alert.firedAt !== null;
    if (!finding) {
      if (unjudged.length > 0 && isUnjudged(JSON.parse(alert.labels), unjudged)) continue;
      if (fired) {
        const absentSince = alert.absentSince ?? now;
        if (alert.absentSince === null) changes.push({ kind: 'absent', id: alert.id });
        if (now - absentSince < settings.resolveAfterMs(alert.rule)) continue;
        note(alert, 'resolved');
      }
      changes.push({ kind: 'resolve', id: alert.id, key: alert.key, fired });
      continue;
    }
    if (isNewOccurrence(finding, alert)) {
      // The open alert was about an earlier occurrence: it ends here, and the loop below opens
      // the new one (a new id, so the pipeline announces it as a new alert).
      changes.push({ kind: 'resolve', id: alert.id, key: alert.key, fired });
      if (fired) note(alert, 'resolved');
      open.delete(alert.key);
      continue;
    }
    changes.push({ kind: 'refresh', id: alert.id, fields: fieldsOf(finding, now) });
    if (!fired && now - alert.activeSince >= settings.forMs(finding.rule)) {
      changes.push({ kind: 'fire', alert });
      note(alert, 'firing');
    }
  }
  for (const finding of latest.values()) {
    if (open.has(finding.key)) continue;
    const fires = settings.forMs(finding.rule) <= 0;
    const { key, rule, account } = finding;
    const input = { key, rule, account, ...fieldsOf(finding, now), activeSince: now, firedAt: fires ? now : null };
    changes.push({ kind: 'open', input });
    note(finding, fires ? 'firing' : 'pending');
  }
  return { changes, transitions };
}

/** Whether the finding names another occurrence than the open alert's (its labels are JSON text). */
function isNewOccurrence(finding: Finding, alert: Pick<OpenAlertState, 'labels'>): boolean {
  const name = finding.occurrenceLabel;
  if (name === undefined) return false;
  const stored = (JSON.parse(alert.labels) as Record<string, string>)[name];
  return stored !== finding.labels[name];
}

function fieldsOf(finding: Finding, now: number): AlertFields {
  return {
    severity: finding.severity,
    summary: finding.summary,
    labels: { ...finding.labels, rule: finding.rule, account: finding.account },
    details: finding.details,
    recipients: finding.recipients ?? null,
    lastSeenAt: now,
  };
}
