import type { Database } from './open.js';
import type { alertFlaps, alerts } from './schema.js';
import { perDatabase } from './statements.js';

export type AlertRecord = typeof alerts.$inferSelect;
export type FlapRecord = typeof alertFlaps.$inferSelect;

/**
 * Alert rows read through statements prepared once, their JSON decoded here rather than by
 * drizzle's row mapping: every evaluation tick reads the open alerts several times.
 */
export const ALERT_COLUMNS = `id, key, rule, account, severity, summary, labels, details, recipients,
  active_since AS activeSince, last_seen_at AS lastSeenAt, fired_at AS firedAt, resolved_at AS resolvedAt,
  absent_since AS absentSince`;

/**
 * The same columns but the details (read as NULL): the pipeline plans on every firing alert but
 * renders only those of a message it writes.
 */
export const ALERT_COLUMNS_BUT_DETAILS = ALERT_COLUMNS.replace('details,', 'NULL AS details,');

/**
 * The details of a record read without them. Frozen and shared, so code that would show them
 * can tell (alerts/notify.ts reads the full records of what it renders, and checks).
 */
export const DETAILS_NOT_READ: AlertRecord['details'] = Object.freeze({});

/** A row as read: the JSON columns as text, details NULL when read with ALERT_COLUMNS_BUT_DETAILS. */
type AlertRow = Omit<AlertRecord, 'labels' | 'details' | 'recipients'> &
  Record<'labels', string> &
  Record<'details' | 'recipients', string | null>;

/** A prepared read of alert rows (`sql` selects ALERT_COLUMNS), returning records as drizzle maps them. */
export function alertRead<P extends unknown[]>(sql: string): (database: Database, ...params: P) => AlertRecord[] {
  const statement = perDatabase(({ sqlite }) => sqlite.prepare<P, AlertRow>(sql));
  return (database, ...params) =>
    statement(database)
      .all(...params)
      .map((row) => ({
        ...row,
        labels: JSON.parse(row.labels),
        details: row.details === null ? DETAILS_NOT_READ : JSON.parse(row.details),
        recipients: row.recipients === null ? null : JSON.parse(row.recipients),
      }));
}

const FLAP_COLUMNS =
  'id, key, rule, account, since, last_change_at AS lastChangeAt, noticed_at AS noticedAt, settled_at AS settledAt';

/** A prepared read of flap rows (`where` selects from alert_flaps). */
export function flapRead<P extends unknown[]>(where: string): (database: Database, ...params: P) => FlapRecord[] {
  const statement = perDatabase(({ sqlite }) =>
    sqlite.prepare<P, FlapRecord>(`SELECT ${FLAP_COLUMNS} FROM alert_flaps WHERE ${where}`),
  );
  return (database, ...params) => statement(database).all(...params);
}
