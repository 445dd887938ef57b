import type { Database } from './open.js';
import type { alertFlaps, alerts } from './schema.js';
import { perDatabase } from './statements.js';

export type AlertRecord = typeof alerts.$inferSelect;
export type FlapRecord = typeof alertFlaps.$inferSelect;

/**
 * Alert rows read as arrays through statements prepared once, decoded here rather than by
 * drizzle's row mapping: every evaluation tick reads the open alerts several times.
 */
export const ALERT_COLUMNS = `id, key, rule, account, severity, summary, labels, details, recipients,
  active_since, last_seen_at, fired_at, resolved_at, absent_since`;

/**
 * The same columns but the details (read as NULL): the pipeline plans on every firing alert but
 * renders only those of a message it writes.
 */
export const ALERT_COLUMNS_BUT_DETAILS = ALERT_COLUMNS.replace('details,', 'NULL,');

/**
 * The details of a record read without them. Frozen and shared, so code that would show them
 * can tell (alerts/notify.ts reads the full records of what it renders, and checks).
 */
export const DETAILS_NOT_READ: AlertRecord['details'] = Object.freeze({});

type AlertRow = [
  id: number,
  key: string,
  rule: string,
  account: string,
  severity: string,
  summary: string,
  labels: string,
  /** NULL when read with ALERT_COLUMNS_BUT_DETAILS. */
  details: string | null,
  recipients: string | null,
  activeSince: number,
  lastSeenAt: number,
  firedAt: number | null,
  resolvedAt: number | null,
  absentSince: number | null,
];

/** The record of a row, as drizzle would map it. */
function toRecord(row: AlertRow): AlertRecord {
  const [id, key, rule, account, severity, summary, labels, details, recipients] = row;
  return {
    id,
    key,
    rule,
    account,
    severity,
    summary,
    labels: JSON.parse(labels),
    details: details === null ? DETAILS_NOT_READ : JSON.parse(details),
    recipients: recipients === null ? null : JSON.parse(recipients),
    activeSince: row[9],
    lastSeenAt: row[10],
    firedAt: row[11],
    resolvedAt: row[12],
    absentSince: row[13],
  };
}

/** A prepared read of alert rows (`sql` selects ALERT_COLUMNS), returning records. */
export function alertRead<P extends unknown[]>(sql: string): (database: Database, ...params: P) => AlertRecord[] {
  const statement = perDatabase(({ sqlite }) => sqlite.prepare<P, AlertRow>(sql).raw());
  return (database, ...params) =>
    statement(database)
      .all(...params)
      .map(toRecord);
}

const FLAP_COLUMNS = 'id, key, rule, account, since, last_change_at, noticed_at, settled_at';
type FlapRow = [number, string, string, string, number, number, number | null, number | null];

/** A prepared read of flap rows (`sql` selects FLAP_COLUMNS from alert_flaps). */
export function flapRead<P extends unknown[]>(where: string): (database: Database, ...params: P) => FlapRecord[] {
  const statement = perDatabase(({ sqlite }) =>
    sqlite.prepare<P, FlapRow>(`SELECT ${FLAP_COLUMNS} FROM alert_flaps WHERE ${where}`).raw(),
  );
  return (database, ...params) =>
    statement(database)
      .all(...params)
      .map(([id, key, rule, account, since, lastChangeAt, noticedAt, settledAt]) => ({
        id,
        key,
        rule,
        account,
        since,
        lastChangeAt,
        noticedAt,
        settledAt,
      }));
}
