import { eq } from 'drizzle-orm';
import {
  ALERT_COLUMNS,
  ALERT_COLUMNS_BUT_DETAILS,
  type AlertRecord,
  alertRead,
  type FlapRecord,
  flapRead,
} from './alert-rows.js';
import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import { planningInputs } from './plan-version.js';
import { alertFlaps } from './schema.js';
import { perDatabase } from './statements.js';

export { type AlertRecord, DETAILS_NOT_READ, type FlapRecord } from './alert-rows.js';
export type AlertInput = Omit<AlertRecord, 'id' | 'firedAt' | 'resolvedAt' | 'absentSince'> & {
  firedAt: number | null;
};

const FIRING = 'FROM alerts WHERE resolved_at IS NULL AND fired_at IS NOT NULL ORDER BY id';
const readOpenFlaps = flapRead<[]>('settled_at IS NULL');

/**
 * A read of the rows of a list, bound as one JSON array: one prepared text whatever its length
 * (an `IN (?, ?, …)` list would build and prepare a new statement whenever the count changes).
 */
const ofList =
  <T, Row>(read: (database: Database, list: string) => Row[]) =>
  async (database: Database, list: readonly T[]): Promise<Row[]> =>
    list.length === 0 ? [] : read(database, JSON.stringify(list));

/** What folding a tick's findings into state reads of an open episode. */
export type OpenAlertState = Pick<
  AlertRecord,
  'id' | 'key' | 'rule' | 'account' | 'severity' | 'activeSince' | 'firedAt' | 'absentSince'
> & {
  /** The labels' JSON text: parsed only for an episode whose rule could not judge this tick. */
  labels: string;
  /** As stored: JSON text, or null for the default recipients. */
  recipients: string | null;
};

const openStatesStatement = perDatabase(({ sqlite }) =>
  sqlite.prepare<[], OpenAlertState>(
    `SELECT id, key, rule, account, severity, labels, recipients, active_since AS activeSince, fired_at AS firedAt,
       absent_since AS absentSince FROM alerts WHERE resolved_at IS NULL ORDER BY id`,
  ),
);

/** Alerts firing now: open episodes that have fired (for metrics and /api/status). */
export const firingAlerts = outsideTransaction(alertRead<[]>(`SELECT ${ALERT_COLUMNS} ${FIRING}`));

/**
 * firingAlerts with DETAILS_NOT_READ for details: for the pipeline's planning (it reads the full
 * records of what it renders) and for counts.
 */
export const firingAlertsButDetails = outsideTransaction(
  alertRead<[]>(`SELECT ${ALERT_COLUMNS_BUT_DETAILS} ${FIRING}`),
);

export const alertsById = ofList<number, AlertRecord>(
  alertRead(`SELECT ${ALERT_COLUMNS} FROM alerts WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`),
);

/** Those of `ids` that have resolved, oldest first (which announced alerts ended). */
export const resolvedAlertsById = ofList<number, AlertRecord>(
  alertRead(
    `SELECT ${ALERT_COLUMNS} FROM alerts WHERE id IN (SELECT value FROM json_each(?)) AND resolved_at IS NOT NULL ORDER BY id`,
  ),
);

/** An alert's JSON columns as stored, in the statements' order: no recipients stays SQL NULL. */
function jsonColumns(
  fields: Pick<AlertRecord, 'labels' | 'details' | 'recipients'>,
): [labels: string, details: string, recipients: string | null] {
  return [
    JSON.stringify(fields.labels),
    JSON.stringify(fields.details),
    fields.recipients == null ? null : JSON.stringify(fields.recipients),
  ];
}

/** Episodes of one key that fired at or after `since`, oldest first (how often it fired lately). */
export const firedEpisodesOf = outsideTransaction(
  alertRead<[key: string, since: number]>(
    `SELECT ${ALERT_COLUMNS} FROM alerts WHERE key = ? AND fired_at >= ? ORDER BY id`,
  ),
);

const firedCountStatement = perDatabase(({ sqlite }) =>
  sqlite.prepare<[string, number], number>('SELECT count(*) FROM alerts WHERE key = ? AND fired_at >= ?').pluck(),
);

/** Flaps not settled yet, by key. */
export async function openFlaps(database: Database): Promise<Map<string, FlapRecord>> {
  return new Map(readOpenFlaps(database).map((row) => [row.key, row]));
}

const readOpenFlapOf = flapRead<[string]>('settled_at IS NULL AND key = ?');

/** Every flap of these keys, settled or not (a resolved episode muted by a flap stays muted). */
export const flapsOf = ofList<string, FlapRecord>(flapRead('key IN (SELECT value FROM json_each(?))'));

function openFlap(database: Database, flap: Omit<FlapRecord, 'id' | 'noticedAt' | 'settledAt'>): void {
  database.db.insert(alertFlaps).values(flap).run();
}

export function updateFlap(
  database: Database,
  id: number,
  change: Partial<Pick<FlapRecord, 'lastChangeAt' | 'noticedAt' | 'settledAt'>>,
): void {
  database.db.update(alertFlaps).set(change).where(eq(alertFlaps.id, id)).run();
}

const readChangedBetween = alertRead<[number, number, number, number]>(
  `SELECT ${ALERT_COLUMNS} FROM alerts
   WHERE (fired_at >= ? AND fired_at < ?) OR (fired_at IS NOT NULL AND resolved_at >= ? AND resolved_at < ?)
   ORDER BY id`,
);

/** Every episode that fired or resolved (having fired) in [from, to), oldest first: the replay report's alerts. */
export async function alertsChangedBetween(database: Database, from: number, to: number): Promise<AlertRecord[]> {
  return readChangedBetween(database, from, to, from, to);
}

const readOpenOf = alertRead<[string]>(`SELECT ${ALERT_COLUMNS} FROM alerts WHERE key = ? AND resolved_at IS NULL`);

/** The open (pending or firing) episode of a key, if any. */
export const openAlertOf = outsideTransaction(openAlertOfSync);

/** openAlertOf, for a store function reading it inside its own transaction. */
export function openAlertOfSync(database: Database, key: string): AlertRecord | undefined {
  return readOpenOf(database, key)[0];
}

/** What a tick rewrites of an episode it saw again. */
export type AlertFields = Pick<
  AlertRecord,
  'severity' | 'summary' | 'labels' | 'details' | 'recipients' | 'lastSeenAt'
>;

/** One change a tick makes to alert state (alerts/state.ts plans them), applied in order. */
export type AlertChange =
  | { kind: 'absent'; id: number }
  /** `fired`: the episode had fired, so its resolve counts for flapping. */
  | { kind: 'resolve'; id: number; key: string; fired: boolean }
  | { kind: 'refresh'; id: number; fields: AlertFields }
  | { kind: 'fire'; alert: Pick<OpenAlertState, 'id' | 'key' | 'rule' | 'account'> }
  | { kind: 'open'; input: AlertInput };

/** Flap detection's settings: a key that fired `count` times within `windowMs` flaps. */
export interface FlapLimits {
  count: number;
  windowMs: number;
}

/**
 * The open episodes, oldest first, with only what recordFindings reads (not whole records), and
 * the planning inputs' count (plan_changes) read before them: a change by any connection to which
 * episodes are open or fired moves it, so applyAlertChanges can tell that what it was planned on
 * is still so.
 */
export async function readAlertStates(database: Database): Promise<{ version: string; open: OpenAlertState[] }> {
  const version = planningInputs(database);
  return { version, open: openStatesStatement(database).all() };
}

/**
 * Applies one tick's changes in one transaction, with flap detection's bookkeeping (a flap
 * settles after a window without a fire or resolve, a fire extends its key's flap or opens one
 * at `count`, a resolve extends it). Refuses (false, nothing written) when the planning inputs
 * changed since `version` was read: another writer opened, fired or resolved an episode, and the
 * changes planned on the older state could open a key twice or resolve what fired again.
 */
export async function applyAlertChanges(
  database: Database,
  version: string,
  changes: readonly AlertChange[],
  now: number,
  flapping: FlapLimits,
): Promise<boolean> {
  return database.transaction(() => {
    if (planningInputs(database) !== version) return false;
    for (const flap of readOpenFlaps(database)) {
      if (now - flap.lastChangeAt >= flapping.windowMs) updateFlap(database, flap.id, { settledAt: now });
    }
    const changed = (key: string) => {
      const open = readOpenFlapOf(database, key)[0];
      if (open) updateFlap(database, open.id, { lastChangeAt: now });
      return open !== undefined;
    };
    const fired = (alert: Pick<AlertRecord, 'key' | 'rule' | 'account'>) => {
      if (changed(alert.key)) return;
      if ((firedCountStatement(database).get(alert.key, now - flapping.windowMs) ?? 0) < flapping.count) return;
      openFlap(database, { key: alert.key, rule: alert.rule, account: alert.account, since: now, lastChangeAt: now });
    };
    const write = writes(database);
    for (const change of changes) {
      switch (change.kind) {
        case 'absent':
          write.absent.run(now, change.id);
          break;
        case 'resolve':
          write.resolved.run(now, change.id);
          if (change.fired) changed(change.key);
          break;
        case 'refresh': {
          const { fields } = change;
          write.refresh.run(fields.severity, fields.summary, ...jsonColumns(fields), fields.lastSeenAt, change.id);
          break;
        }
        case 'fire':
          write.fired.run(now, change.alert.id);
          fired(change.alert);
          break;
        case 'open': {
          const { input } = change;
          write.open.run(
            input.key,
            input.rule,
            input.account,
            input.severity,
            input.summary,
            ...jsonColumns(input),
            input.activeSince,
            input.lastSeenAt,
            input.firedAt,
          );
          if (input.firedAt !== null) fired(input);
        }
      }
    }
    return true;
  });
}

/**
 * The writes every evaluation tick makes, prepared once per database. JSON columns are bound as
 * drizzle encodes them (JSON.stringify; recipients' null stays SQL NULL).
 */
const writes = perDatabase((database: Database) => ({
  open: database.sqlite.prepare<
    [string, string, string, string, string, string, string, string | null, number, number, number | null]
  >(
    `INSERT INTO alerts (key, rule, account, severity, summary, labels, details, recipients, active_since, last_seen_at,
       fired_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ),
  refresh: database.sqlite.prepare<[string, string, string, string, string | null, number, number]>(
    `UPDATE alerts SET severity = ?, summary = ?, labels = ?, details = ?, recipients = ?, last_seen_at = ?,
     absent_since = NULL WHERE id = ?`,
  ),
  absent: database.sqlite.prepare<[number, number]>(
    'UPDATE alerts SET absent_since = ? WHERE id = ? AND absent_since IS NULL',
  ),
  fired: database.sqlite.prepare<[number, number]>('UPDATE alerts SET fired_at = ? WHERE id = ? AND fired_at IS NULL'),
  resolved: database.sqlite.prepare<[number, number]>(
    'UPDATE alerts SET resolved_at = ? WHERE id = ? AND resolved_at IS NULL',
  ),
}));
