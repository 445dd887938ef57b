import { and, asc, eq, gt, isNotNull, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Database } from './open.js';
import { alertmanagerOutbox, alerts } from './schema.js';
import { perDatabase } from './statements.js';

export type AlertmanagerRow = typeof alertmanagerOutbox.$inferSelect;

const unfinished = isNull(alertmanagerOutbox.finishedAt);

/** Read on every evaluation tick (with or without an Alertmanager): prepared once per database. */
const openDeliveriesRead = perDatabase((database: Database) =>
  database.db
    .select({ row: alertmanagerOutbox, rule: alerts.rule, resolvedAt: alerts.resolvedAt })
    .from(alertmanagerOutbox)
    .innerJoin(alerts, eq(alerts.id, alertmanagerOutbox.alertId))
    .where(unfinished)
    .orderBy(asc(alertmanagerOutbox.id))
    .prepare(),
);

/** Every row still delivering, with its alert's rule and resolve time (for the queue step). */
export function openDeliveries(
  database: Database,
): Array<AlertmanagerRow & { rule: string; resolvedAt: number | null }> {
  return openDeliveriesRead(database)
    .all()
    .map(({ row, rule, resolvedAt }) => ({ ...row, rule, resolvedAt }));
}

const anyOpenStatement = perDatabase(({ sqlite }) =>
  sqlite.prepare<[], number>('SELECT EXISTS (SELECT 1 FROM alertmanager_outbox WHERE finished_at IS NULL)').pluck(),
);

/** Whether any row is still delivering: without an Alertmanager, most ticks have none to close. */
export function hasOpenDeliveries(database: Database): boolean {
  return anyOpenStatement(database).get() === 1;
}

/**
 * A firing episode must be delivered to `target`: a new row due now, or a row closed while the
 * rule was routed elsewhere opened again. A row already delivering is left as it is.
 */
export function ensureFiring(database: Database, target: string, alertId: number, now: number): void {
  database.db
    .insert(alertmanagerOutbox)
    .values({ target, alertId, state: 'firing', createdAt: now, nextAttemptAt: now })
    .onConflictDoUpdate({
      target: [alertmanagerOutbox.target, alertmanagerOutbox.alertId],
      set: { state: 'firing', attempts: 0, nextAttemptAt: now, lastError: null, finishedAt: null },
      where: and(isNotNull(alertmanagerOutbox.finishedAt), eq(alertmanagerOutbox.state, 'firing')),
    })
    .run();
}

/** The episode resolved: the row's next delivery says so, now (or when its backoff ends). */
export function markResolving(database: Database, id: number, now: number): void {
  database.db
    .update(alertmanagerOutbox)
    .set({
      state: 'resolved',
      nextAttemptAt: sql`CASE WHEN ${alertmanagerOutbox.attempts} > 0 THEN ${alertmanagerOutbox.nextAttemptAt} ELSE ${now} END`,
    })
    .where(and(eq(alertmanagerOutbox.id, id), unfinished, eq(alertmanagerOutbox.state, 'firing')))
    .run();
}

/** Nothing more is sent for this row (`why` says what closed it). */
export function finishDelivery(database: Database, id: number, at: number, why: string): void {
  database.db
    .update(alertmanagerOutbox)
    .set({ finishedAt: at, lastError: why, leaseUntil: null })
    .where(and(eq(alertmanagerOutbox.id, id), unfinished))
    .run();
}

/**
 * Whether `target` is waiting out a backoff: one of its rows failed and is not due yet. A target
 * backs off as a whole, so its rows reach it in the order they were written.
 */
export function targetBackingOff(database: Database, target: string, now: number): boolean {
  const row = database.db
    .select({ id: alertmanagerOutbox.id })
    .from(alertmanagerOutbox)
    .where(
      and(
        unfinished,
        eq(alertmanagerOutbox.target, target),
        gt(alertmanagerOutbox.attempts, 0),
        gt(alertmanagerOutbox.nextAttemptAt, now),
      ),
    )
    .limit(1)
    .get();
  return row !== undefined;
}

/** The rows of `target` due at `now` and not leased, oldest first. */
export function dueDeliveries(database: Database, target: string, now: number, limit: number): AlertmanagerRow[] {
  return database.db
    .select()
    .from(alertmanagerOutbox)
    .where(
      and(
        unfinished,
        eq(alertmanagerOutbox.target, target),
        lte(alertmanagerOutbox.nextAttemptAt, now),
        or(isNull(alertmanagerOutbox.leaseUntil), lte(alertmanagerOutbox.leaseUntil, now)),
      ),
    )
    .orderBy(asc(alertmanagerOutbox.id))
    .limit(limit)
    .all();
}

/** Takes a row for one attempt until `leaseUntil`; false when another run holds it (as claimMessage). */
export function claimDelivery(database: Database, id: number, now: number, leaseUntil: number): boolean {
  const result = database.db
    .update(alertmanagerOutbox)
    .set({ leaseUntil, attempts: sql`${alertmanagerOutbox.attempts} + 1` })
    .where(
      and(
        eq(alertmanagerOutbox.id, id),
        unfinished,
        or(isNull(alertmanagerOutbox.leaseUntil), lte(alertmanagerOutbox.leaseUntil, now)),
      ),
    )
    .run();
  return result.changes === 1;
}

/**
 * Alertmanager took the row's `state`: a firing row is due again at `resendAt`, a resolved one
 * is finished. If the episode resolved while the firing one was on its way, the row stays due.
 */
export function markDelivered(
  database: Database,
  row: Pick<AlertmanagerRow, 'id' | 'state'>,
  at: number,
  resendAt: number,
): void {
  const done = { lastSentAt: at, attempts: 0, leaseUntil: null, lastError: null };
  const result = database.db
    .update(alertmanagerOutbox)
    .set(row.state === 'firing' ? { ...done, nextAttemptAt: resendAt } : { ...done, finishedAt: at })
    .where(and(eq(alertmanagerOutbox.id, row.id), eq(alertmanagerOutbox.state, row.state)))
    .run();
  if (result.changes === 0) {
    database.db
      .update(alertmanagerOutbox)
      .set({ lastSentAt: at, attempts: 0, leaseUntil: null })
      .where(eq(alertmanagerOutbox.id, row.id))
      .run();
  }
}

export function markDeliveryFailed(database: Database, id: number, nextAttemptAt: number, error: string): void {
  database.db
    .update(alertmanagerOutbox)
    .set({ nextAttemptAt, lastError: error, leaseUntil: null })
    .where(eq(alertmanagerOutbox.id, id))
    .run();
}

/**
 * Alerts waiting to reach an Alertmanager, by target and account: never delivered yet, a
 * resolved notice not yet delivered, or failing. Firing alerts only waiting for their next
 * resend are not counted.
 */
export function queuedDeliveries(database: Database): Array<{ target: string; account: string; queued: number }> {
  return database.db
    .select({ target: alertmanagerOutbox.target, account: alerts.account, queued: sql<number>`count(*)` })
    .from(alertmanagerOutbox)
    .innerJoin(alerts, eq(alerts.id, alertmanagerOutbox.alertId))
    .where(
      and(
        unfinished,
        or(
          isNull(alertmanagerOutbox.lastSentAt),
          eq(alertmanagerOutbox.state, 'resolved'),
          gt(alertmanagerOutbox.attempts, 0),
        ),
      ),
    )
    .groupBy(alertmanagerOutbox.target, alerts.account)
    .all();
}

/** Every row, oldest first (for tests and the replay report). */
export function allDeliveries(database: Database): AlertmanagerRow[] {
  return database.db.select().from(alertmanagerOutbox).orderBy(asc(alertmanagerOutbox.id)).all();
}

/**
 * Deletes rows finished before `before` and not leased. A finished row says nothing more will
 * be sent; if its alert fires again towards the same target, ensureFiring writes a new row,
 * as it would have reopened the old one. Returns how many were deleted.
 */
export function pruneFinishedDeliveries(database: Database, before: number, now: number): number {
  return database.db
    .delete(alertmanagerOutbox)
    .where(
      and(
        isNotNull(alertmanagerOutbox.finishedAt),
        lt(alertmanagerOutbox.finishedAt, before),
        or(isNull(alertmanagerOutbox.leaseUntil), lte(alertmanagerOutbox.leaseUntil, now)),
      ),
    )
    .run().changes;
}
