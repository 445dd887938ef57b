import { and, asc, eq, gte, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Database } from './open.js';
import { alertFlaps, alerts } from './schema.js';
import { perDatabase, rowWriter } from './statements.js';

export type AlertRecord = typeof alerts.$inferSelect;
export type AlertInput = Omit<AlertRecord, 'id' | 'firedAt' | 'resolvedAt' | 'absentSince'> & {
  firedAt: number | null;
};
export type FlapRecord = typeof alertFlaps.$inferSelect;

/** Episodes still open (pending or firing), oldest first. */
export function openAlerts(database: Database): AlertRecord[] {
  return statements(database).open.all();
}

/** Alerts firing now: open episodes that have fired (for metrics and /api/status). */
export function firingAlerts(database: Database): AlertRecord[] {
  return statements(database).firing.all();
}

export function alertsById(database: Database, ids: readonly number[]): AlertRecord[] {
  if (ids.length === 0) return [];
  return statements(database).byId.all({ ids: JSON.stringify(ids) });
}

/**
 * Those of `ids` that have resolved, oldest first: the pipeline asks every tick which announced
 * alerts ended, and most announced alerts still fire (reading and parsing them again was waste).
 */
export function resolvedAlertsById(database: Database, ids: readonly number[]): AlertRecord[] {
  if (ids.length === 0) return [];
  return statements(database).resolvedById.all({ ids: JSON.stringify(ids) });
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
  statements(database).refresh({ ...fields, id });
}

/** The condition was judged absent this tick, for the first time since it was last seen. */
export function markAlertAbsent(database: Database, id: number, at: number): void {
  database.db
    .update(alerts)
    .set({ absentSince: at })
    .where(and(eq(alerts.id, id), isNull(alerts.absentSince)))
    .run();
}

/** Episodes of one key that fired at or after `since`, oldest first (how often it fired lately). */
export function firedEpisodesOf(database: Database, key: string, since: number): AlertRecord[] {
  return database.db
    .select()
    .from(alerts)
    .where(and(eq(alerts.key, key), gte(alerts.firedAt, since)))
    .orderBy(asc(alerts.id))
    .all();
}

/** Flaps not settled yet, by key. */
export function openFlaps(database: Database): Map<string, FlapRecord> {
  const rows = statements(database).openFlaps.all();
  return new Map(rows.map((row) => [row.key, row]));
}

/** Every flap of these keys, settled or not (a resolved episode muted by a flap stays muted). */
export function flapsOf(database: Database, keys: readonly string[]): FlapRecord[] {
  if (keys.length === 0) return [];
  return statements(database).flapsOf.all({ keys: JSON.stringify(keys) });
}

export function openFlap(database: Database, flap: Omit<FlapRecord, 'id' | 'noticedAt' | 'settledAt'>): void {
  database.db.insert(alertFlaps).values(flap).run();
}

export function updateFlap(
  database: Database,
  id: number,
  change: Partial<Pick<FlapRecord, 'lastChangeAt' | 'noticedAt' | 'settledAt'>>,
): void {
  database.db.update(alertFlaps).set(change).where(eq(alertFlaps.id, id)).run();
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

/** The open (pending or firing) episode of a key, if any. */
export function openAlertOf(database: Database, key: string): AlertRecord | undefined {
  return database.db
    .select()
    .from(alerts)
    .where(and(eq(alerts.key, key), isNull(alerts.resolvedAt)))
    .get();
}

const openFiredAtStatement = perDatabase(({ sqlite }) =>
  sqlite
    .prepare<[string], [string, number | null]>(
      `SELECT key, fired_at FROM alerts WHERE resolved_at IS NULL AND key IN (SELECT value FROM json_each(?))`,
    )
    .raw(),
);

/**
 * When the open episode of each of `keys` fired (null while pending; absent without one), in one
 * read: the idle ladder asks this for every Pod whose stop is due, every tick.
 */
export function openAlertsFiredAt(database: Database, keys: readonly string[]): Map<string, number | null> {
  if (keys.length === 0) return new Map();
  return new Map(openFiredAtStatement(database).all(JSON.stringify(keys)));
}

type RefreshRow = Pick<AlertRecord, 'id' | 'severity' | 'summary' | 'labels' | 'details' | 'recipients' | 'lastSeenAt'>;

/**
 * The reads and the refresh every evaluation tick makes, prepared once per database: building
 * them with drizzle on each call cost more than running them (most ticks find little to change).
 */
const statements = perDatabase((database: Database) => ({
  open: database.db.select().from(alerts).where(isNull(alerts.resolvedAt)).orderBy(asc(alerts.id)).prepare(),
  firing: database.db
    .select()
    .from(alerts)
    .where(and(isNull(alerts.resolvedAt), isNotNull(alerts.firedAt)))
    .orderBy(asc(alerts.id))
    .prepare(),
  refresh: rowWriter<RefreshRow>(
    database,
    database.db
      .update(alerts)
      // Placeholders where drizzle's types want values: rowWriter binds each row's own.
      .set({
        severity: sql.placeholder('severity'),
        summary: sql.placeholder('summary'),
        labels: sql.placeholder('labels'),
        details: sql.placeholder('details'),
        recipients: sql.placeholder('recipients'),
        lastSeenAt: sql.placeholder('lastSeenAt'),
        absentSince: null,
      } as unknown as Partial<AlertRecord>)
      .where(eq(alerts.id, sql.placeholder('id'))),
  ),
  openFlaps: database.db.select().from(alertFlaps).where(isNull(alertFlaps.settledAt)).prepare(),
  // A JSON array bound as one parameter: one prepared text whatever the number of ids (an
  // `IN (?, ?, …)` list would build and prepare a new statement whenever the count changes).
  byId: database.db
    .select()
    .from(alerts)
    .where(sql`${alerts.id} IN (SELECT value FROM json_each(${sql.placeholder('ids')}))`)
    .orderBy(asc(alerts.id))
    .prepare(),
  resolvedById: database.db
    .select()
    .from(alerts)
    .where(
      and(sql`${alerts.id} IN (SELECT value FROM json_each(${sql.placeholder('ids')}))`, isNotNull(alerts.resolvedAt)),
    )
    .orderBy(asc(alerts.id))
    .prepare(),
  flapsOf: database.db
    .select()
    .from(alertFlaps)
    .where(sql`${alertFlaps.key} IN (SELECT value FROM json_each(${sql.placeholder('keys')}))`)
    .prepare(),
}));
