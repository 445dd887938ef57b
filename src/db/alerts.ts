import { and, asc, eq, gte, inArray, isNotNull, isNull, lt, or } from 'drizzle-orm';
import type { Database } from './open.js';
import { alerts } from './schema.js';

export type AlertRecord = typeof alerts.$inferSelect;
export type AlertInput = Omit<AlertRecord, 'id' | 'firedAt' | 'resolvedAt'> & { firedAt: number | null };

/** Episodes still open (pending or firing), oldest first. */
export function openAlerts(database: Database): AlertRecord[] {
  return database.db.select().from(alerts).where(isNull(alerts.resolvedAt)).orderBy(asc(alerts.id)).all();
}

/** Alerts firing now: open episodes that have fired (for metrics and /api/status). */
export function firingAlerts(database: Database): AlertRecord[] {
  return database.db
    .select()
    .from(alerts)
    .where(and(isNull(alerts.resolvedAt), isNotNull(alerts.firedAt)))
    .orderBy(asc(alerts.id))
    .all();
}

export function alertsById(database: Database, ids: readonly number[]): AlertRecord[] {
  if (ids.length === 0) return [];
  return database.db
    .select()
    .from(alerts)
    .where(inArray(alerts.id, [...ids]))
    .orderBy(asc(alerts.id))
    .all();
}

export function insertAlert(database: Database, input: AlertInput): AlertRecord {
  return database.db.insert(alerts).values(input).returning().get();
}

/** This tick saw the key again: its latest wording and figures replace the old. */
export function refreshAlert(
  database: Database,
  id: number,
  fields: Pick<AlertRecord, 'severity' | 'summary' | 'labels' | 'details' | 'recipients' | 'lastSeenAt'>,
): void {
  database.db.update(alerts).set(fields).where(eq(alerts.id, id)).run();
}

export function markAlertFired(database: Database, id: number, at: number): void {
  database.db
    .update(alerts)
    .set({ firedAt: at })
    .where(and(eq(alerts.id, id), isNull(alerts.firedAt)))
    .run();
}

/** Idempotent: an episode resolves once, at the first tick that no longer saw it. */
export function markAlertResolved(database: Database, id: number, at: number): void {
  database.db
    .update(alerts)
    .set({ resolvedAt: at })
    .where(and(eq(alerts.id, id), isNull(alerts.resolvedAt)))
    .run();
}

/** Every episode that fired or resolved (having fired) in [from, to), oldest first: the replay report's alerts. */
export function alertsChangedBetween(database: Database, from: number, to: number): AlertRecord[] {
  return database.db
    .select()
    .from(alerts)
    .where(
      or(
        and(gte(alerts.firedAt, from), lt(alerts.firedAt, to)),
        and(isNotNull(alerts.firedAt), gte(alerts.resolvedAt, from), lt(alerts.resolvedAt, to)),
      ),
    )
    .orderBy(asc(alerts.id))
    .all();
}
