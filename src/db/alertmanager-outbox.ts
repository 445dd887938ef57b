import { and, asc, eq, gt, isNotNull, isNull, or, sql } from 'drizzle-orm';
import { type OutboxRow, pruneRows, recordClosed } from './channel-outbox.js';
import type { Database } from './open.js';
import { alerts, channelOutbox } from './schema.js';
import { perDatabase } from './statements.js';

/**
 * The Alertmanager channel's rows of the outbox: one per (Alertmanager URL, alert episode), each
 * keeping that Alertmanager in sync with the episode (tables/outbox.ts).
 */

const CHANNEL = 'alertmanager';

const unfinished = and(eq(channelOutbox.channel, CHANNEL), isNull(channelOutbox.finishedAt));

/** Every row still delivering, with its alert's rule, labels and resolve time (for the queue step). */
function openDeliveries(
  database: Database,
): Array<OutboxRow & { rule: string; labels: Record<string, string>; resolvedAt: number | null }> {
  return database.db
    .select({ row: channelOutbox, rule: alerts.rule, labels: alerts.labels, resolvedAt: alerts.resolvedAt })
    .from(channelOutbox)
    .innerJoin(alerts, eq(alerts.id, channelOutbox.alertId))
    .where(unfinished)
    .orderBy(asc(channelOutbox.id))
    .all()
    .map(({ row, rule, labels, resolvedAt }) => ({ ...row, rule, labels, resolvedAt }));
}

/** Whether any row is still delivering: without an Alertmanager, most ticks have none to close. */
export async function hasOpenDeliveries(database: Database): Promise<boolean> {
  return openQuery(database).get() !== undefined;
}

// Built once per database: every tick asks it.
const openQuery = perDatabase((database) =>
  database.db.select({ id: channelOutbox.id }).from(channelOutbox).where(unfinished).limit(1).prepare(),
);

/**
 * A firing episode must be delivered to `target`: a new row due now, or a row closed while the
 * rule was routed elsewhere opened again. A row already delivering is left as it is.
 */
function ensureFiring(
  database: Database,
  target: string,
  alert: { id: number; key: string; account: string },
  now: number,
): void {
  database.db
    .insert(channelOutbox)
    .values({
      channel: CHANNEL,
      target,
      groupKey: alert.key,
      account: alert.account,
      reason: 'episode',
      alertKeys: [alert.key],
      alertId: alert.id,
      state: 'firing',
      createdAt: now,
      nextAttemptAt: now,
    })
    .onConflictDoUpdate({
      target: [channelOutbox.channel, channelOutbox.target, channelOutbox.alertId],
      targetWhere: sql`alert_id IS NOT NULL`,
      set: { state: 'firing', attempts: 0, nextAttemptAt: now, lastError: null, finishedAt: null },
      setWhere: and(isNotNull(channelOutbox.finishedAt), eq(channelOutbox.state, 'firing')),
    })
    .run();
}

/** The episode resolved: the row's next delivery says so, now (or when its backoff ends). */
function markResolving(database: Database, id: number, now: number): void {
  database.db
    .update(channelOutbox)
    .set({
      state: 'resolved',
      nextAttemptAt: sql`CASE WHEN ${channelOutbox.attempts} > 0 THEN ${channelOutbox.nextAttemptAt} ELSE ${now} END`,
    })
    .where(and(eq(channelOutbox.id, id), unfinished, eq(channelOutbox.state, 'firing')))
    .run();
}

/**
 * Alerts waiting to reach an Alertmanager, by target and account: never delivered yet, a
 * resolved notice not yet delivered, or failing. Firing alerts only waiting for their next
 * resend are not counted.
 */
export async function queuedDeliveries(
  database: Database,
): Promise<Array<{ target: string; account: string; queued: number }>> {
  return database.db
    .select({ target: channelOutbox.target, account: alerts.account, queued: sql<number>`count(*)` })
    .from(channelOutbox)
    .innerJoin(alerts, eq(alerts.id, channelOutbox.alertId))
    .where(
      and(
        unfinished,
        or(isNull(channelOutbox.lastDeliveredAt), eq(channelOutbox.state, 'resolved'), gt(channelOutbox.attempts, 0)),
      ),
    )
    .groupBy(channelOutbox.target, alerts.account)
    .all();
}

// Episode rows (an alert_id) of every channel finished before @before and not leased.
// SQL text: the tally and the delete share this condition.
const PRUNABLE = `alert_id IS NOT NULL AND finished_at IS NOT NULL AND finished_at < @before
  AND (lease_until IS NULL OR lease_until <= @now)`;

/**
 * Deletes the episode rows of every channel finished before `before` and not leased, counted in
 * outbox_pruned; returns how many. A finished row says nothing more will be sent: if its alert
 * fires again towards the same target, ensureFiring writes a new row as it would have reopened it.
 */
export async function pruneFinishedDeliveries(database: Database, before: number, now: number): Promise<number> {
  return pruneRows(database, PRUNABLE, { before, now });
}

/** The episodes firing now, oldest first: what the sync reads of them. */
function firedEpisodes(database: Database) {
  return database.db
    .select({ id: alerts.id, key: alerts.key, rule: alerts.rule, labels: alerts.labels, account: alerts.account })
    .from(alerts)
    .where(and(isNull(alerts.resolvedAt), isNotNull(alerts.firedAt)))
    .orderBy(asc(alerts.id))
    .all();
}

/**
 * Brings the outbox in line with the alert state at `now`, in one transaction: fired episodes
 * `routed` to Alertmanager get a row per target URL, resolved ones turn their rows to
 * `resolved`, and rows nobody should receive any more (URL removed, rule routed elsewhere) are
 * closed. `routed` is a pure function of the alert's rule and labels (the configuration's routes).
 */
export async function syncAlertmanagerOutbox(
  database: Database,
  targets: readonly string[],
  routed: (alert: { rule: string; labels: Readonly<Record<string, string>> }) => boolean,
  now: number,
): Promise<void> {
  // Without a URL the only work is closing rows left from one: none, on almost every tick.
  if (targets.length === 0 && !(await hasOpenDeliveries(database))) return;
  database.transaction(() => {
    for (const alert of targets.length > 0 ? firedEpisodes(database) : []) {
      if (!routed(alert)) continue;
      for (const target of targets) ensureFiring(database, target, alert, now);
    }
    for (const row of openDeliveries(database)) {
      if (!targets.includes(row.target)) recordClosed(database, row.id, now, 'closed: URL no longer configured');
      else if (row.resolvedAt !== null) markResolving(database, row.id, now);
      else if (!routed(row)) recordClosed(database, row.id, now, 'closed: rule no longer routed to alertmanager');
    }
  });
}
