import type { Clock } from '../clock.js';
import type { Config } from '../config/schema.js';
import type { AlertmanagerConfig } from '../config/sections/alertmanager.js';
import {
  type AlertmanagerRow,
  claimDelivery,
  dueDeliveries,
  ensureFiring,
  finishDelivery,
  hasOpenDeliveries,
  markDelivered,
  markDeliveryFailed,
  markResolving,
  openDeliveries,
  targetBackingOff,
} from '../db/alertmanager-outbox.js';
import { alertsById, firingAlerts } from '../db/alerts.js';
import type { Database } from '../db/open.js';
import type { EventSink } from '../events.js';
import type { Logger } from '../log.js';
import type { CommandLine } from '../messages/commands.js';
import type { InflightCounter } from '../scheduler/inflight.js';
import type { EvaluationEvents } from '../tick/context.js';
import { AlertmanagerError, postAlerts } from './alertmanager-client.js';
import { toPostableAlert } from './alertmanager-payload.js';
import { retryDelay } from './retry.js';
import { routesTo } from './route.js';

/**
 * The Alertmanager outbox. Alertmanager keeps alert state, so what must not be lost is not a
 * message but what each Alertmanager should know: every fired episode routed to it is written
 * here (one row per Alertmanager URL) in the tick it fires, and stays until Alertmanager has
 * taken its resolved form. While firing it is posted again every resend interval; while an
 * Alertmanager is down its rows back off (alerts/retry.ts) and wait, in order. Posting the same
 * labels twice updates one alert in Alertmanager, so an attempt in doubt (a crash between its
 * answer and our record) is simply made again: nothing is lost, and nothing shows twice.
 */

/** At most this many alerts per POST (Prometheus sends 64). */
const BATCH = 64;

/**
 * Brings the outbox in line with the alert state at `now`, in one transaction: fired episodes
 * routed to Alertmanager get a row per URL, resolved ones turn their rows to `resolved`, and
 * rows nobody should receive any more (URL removed, rule routed elsewhere) are closed; the
 * Alertmanager ends those alerts itself when their `endsAt` passes.
 */
export function queueForAlertmanager(database: Database, config: Config, now: number): void {
  const targets = config.alerts.alertmanager?.urls ?? [];
  const routed = (rule: string) => targets.length > 0 && routesTo(config, rule, 'alertmanager');
  // Without a URL the only work is closing rows left from one: none, on almost every tick.
  if (targets.length === 0 && !hasOpenDeliveries(database)) return;
  database.transaction(() => {
    // Without a URL nothing is routed: only rows left from a removed URL need closing below.
    for (const alert of targets.length > 0 ? firingAlerts(database) : []) {
      if (!routed(alert.rule)) continue;
      for (const target of targets) ensureFiring(database, target, alert.id, now);
    }
    for (const row of openDeliveries(database)) {
      if (!targets.includes(row.target)) finishDelivery(database, row.id, now, 'closed: URL no longer configured');
      else if (row.resolvedAt !== null) markResolving(database, row.id, now);
      else if (!routed(row.rule))
        finishDelivery(database, row.id, now, 'closed: rule no longer routed to alertmanager');
    }
  });
}

export interface AlertmanagerDeliveryContext {
  db: Database;
  clock: Clock;
  config: Config;
  log: Logger;
  events: EventSink<Pick<EvaluationEvents, 'alertmanager:sent' | 'alertmanager:failed'>>;
  inflight?: InflightCounter;
  signal?: AbortSignal;
  /** How the commands in the descriptions run this podwarden. */
  commandLine?: CommandLine;
}

export interface AlertmanagerDeliveryResult {
  /** Alerts Alertmanager took, over every URL. */
  sent: number;
  /** Alerts whose POST failed (each will be retried). */
  failed: number;
}

/**
 * How long an attempt holds its rows beyond the POST's own timeout. Short, unlike the email
 * outbox's lease: a firing alert held after a crash is not resent, and Alertmanager resolves it
 * when its `endsAt` (a few resend intervals) passes. Posting again is harmless.
 */
const LEASE_MARGIN_MS = 60_000;

/**
 * One pass: the URLs of the HA set are served side by side (one that hangs does not hold back
 * the others), each getting its due rows oldest first, in batches; a URL that fails waits out
 * its backoff.
 */
export async function deliverToAlertmanager(ctx: AlertmanagerDeliveryContext): Promise<AlertmanagerDeliveryResult> {
  const result: AlertmanagerDeliveryResult = { sent: 0, failed: 0 };
  const section = ctx.config.alerts.alertmanager;
  if (section === undefined) return result;
  const leaseMs = section.timeoutMs + LEASE_MARGIN_MS;
  const serve = async (target: string) => {
    while (!ctx.signal?.aborted) {
      const now = ctx.clock.now();
      if (targetBackingOff(ctx.db, target, now)) return;
      const rows = dueDeliveries(ctx.db, target, now, BATCH).filter((row) =>
        claimDelivery(ctx.db, row.id, now, now + leaseMs),
      );
      if (rows.length === 0) return;
      const outcome = await deliverBatch(ctx, section, target, rows, now);
      result[outcome] += rows.length;
      if (outcome === 'failed' || rows.length < BATCH) return;
    }
  };
  await Promise.all(section.urls.map(serve));
  return result;
}

async function deliverBatch(
  ctx: AlertmanagerDeliveryContext,
  section: AlertmanagerConfig,
  target: string,
  rows: readonly AlertmanagerRow[],
  now: number,
): Promise<'sent' | 'failed'> {
  const records = new Map(alertsById(ctx.db, [...new Set(rows.map((row) => row.alertId))]).map((r) => [r.id, r]));
  const payload = rows.flatMap((row) => {
    const record = records.get(row.alertId);
    return record
      ? [
          toPostableAlert(record, {
            alertmanager: section,
            publicUrl: ctx.config.http.publicUrl,
            now,
            commandLine: ctx.commandLine,
          }),
        ]
      : [];
  });
  const accounts = countBy(rows.map((row) => records.get(row.alertId)?.account ?? 'unknown'));
  try {
    const post = postAlerts(target, payload, section, ctx.signal);
    await (ctx.inflight ? ctx.inflight.track(post) : post);
  } catch (error) {
    const message = (error as Error).message;
    ctx.db.transaction(() => {
      for (const row of rows)
        markDeliveryFailed(ctx.db, row.id, ctx.clock.now() + retryDelay(row.attempts + 1), message);
    });
    const refused = error instanceof AlertmanagerError && error.refused;
    const attempts = Math.max(...rows.map((row) => row.attempts + 1));
    const fields = { alertmanager: target, alerts: rows.length, attempts, err: message };
    if (refused) ctx.log.error(fields, 'Alertmanager refused the alerts; retrying, but a person must look');
    else ctx.log.warn(fields, 'Alertmanager unreachable; the alerts wait in the outbox');
    for (const [account, count] of accounts) {
      ctx.events.emit('alertmanager:failed', { at: ctx.clock.now(), alertmanager: target, account, alerts: count });
    }
    return 'failed';
  }
  const at = ctx.clock.now();
  ctx.db.transaction(() => {
    for (const row of rows) markDelivered(ctx.db, row, at, at + section.resendIntervalMs);
  });
  ctx.log.debug({ alertmanager: target, alerts: rows.length }, 'alerts posted to Alertmanager');
  for (const [account, count] of accounts) {
    ctx.events.emit('alertmanager:sent', { at, alertmanager: target, account, alerts: count });
  }
  return 'sent';
}

function countBy(items: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return counts;
}
