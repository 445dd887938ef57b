import type { Deliverer, Outcome, Recorded } from '../alerts/deliver.js';
import { recipientsOn } from '../alerts/route.js';
import type { Config } from '../config/schema.js';
import type { AlertmanagerConfig } from '../config/sections/alertmanager.js';
import { syncAlertmanagerOutbox } from '../db/alertmanager-outbox.js';
import { alertsById } from '../db/alerts.js';
import type { OutboxRow } from '../db/channel-outbox.js';
import type { Database } from '../db/open.js';
import { AlertmanagerError, postAlerts } from './alertmanager-client.js';
import { toPostableAlert } from './alertmanager-payload.js';
import type { Channel } from './channel.js';
import type { NotificationContext } from './context.js';

/**
 * Alertmanager groups and dedupes itself: every fired episode routed to it has a row per URL from
 * the tick it fires until Alertmanager has taken its resolved form, posted again every resend
 * interval while firing. The same labels update one alert, so an attempt in doubt is made again.
 */

/** At most this many alerts per POST (Prometheus sends 64). */
const BATCH = 64;

/** How long an attempt holds its rows beyond the POST's timeout: short, posting again is harmless. */
const LEASE_MARGIN_MS = 60_000;

/**
 * The outbox in line with the alert state at `now` (db/alertmanager-outbox.ts); a closed row's
 * alert is ended by the Alertmanager itself when its `endsAt` passes.
 */
export async function queueForAlertmanager(database: Database, config: Config, now: number): Promise<void> {
  const targets = config.alerts.alertmanager?.urls ?? [];
  const routed = (alert: { rule: string; labels: Readonly<Record<string, string>> }) =>
    targets.length > 0 && recipientsOn(config, { ...alert, recipients: [] }, 'alertmanager') !== undefined;
  await syncAlertmanagerOutbox(database, targets, routed, now);
}

export const alertmanagerChannel: Channel = {
  name: 'alertmanager',
  sync: (ctx) => queueForAlertmanager(ctx.db, ctx.config, ctx.now),
  deliverer(ctx) {
    const section = ctx.config.alerts.alertmanager;
    return section === undefined ? undefined : alertmanagerDeliverer(ctx, section);
  },
};

/** Posts each URL's due rows in batches; a URL that fails waits out its backoff, its rows in order. */
export function alertmanagerDeliverer(
  ctx: Pick<NotificationContext, 'db' | 'config' | 'clock' | 'log' | 'events' | 'signal' | 'commandLine'>,
  section: AlertmanagerConfig,
): Deliverer {
  const log = ctx.log.child({ output: 'alertmanager' });
  const accountsOf = (rows: readonly OutboxRow[]) => countBy(rows.map((row) => row.account));
  return {
    channel: 'alertmanager',
    targets: section.urls,
    batchSize: BATCH,
    leaseMs: section.timeoutMs + LEASE_MARGIN_MS,
    inOrder: true,
    async deliver(rows, target, now): Promise<Outcome> {
      const records = new Map(
        (await alertsById(ctx.db, [...new Set(rows.map((row) => row.alertId as number))])).map((r) => [r.id, r]),
      );
      const payload = rows.flatMap((row) => {
        const record = records.get(row.alertId as number);
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
      try {
        await postAlerts(target, payload, section, ctx.signal);
      } catch (error) {
        const refused = error instanceof AlertmanagerError && error.refused;
        return { kind: 'retry', error: (error as Error).message, unreachable: !refused };
      }
      return { kind: 'delivered', againAt: ctx.clock.now() + section.resendIntervalMs };
    },
    recorded(rows, outcome: Recorded, at, target) {
      if (outcome.kind === 'delivered') {
        log.debug({ alertmanager: target, alerts: rows.length }, 'alerts posted to Alertmanager');
        for (const [account, count] of accountsOf(rows)) {
          ctx.events.emit('alertmanager:sent', { at, alertmanager: target, account, alerts: count });
        }
        return;
      }
      const attempts = Math.max(...rows.map((row) => row.attempts + 1));
      const fields = { alertmanager: target, alerts: rows.length, attempts, err: outcome.error };
      if (outcome.kind === 'retry' && !outcome.unreachable) {
        log.error(fields, 'Alertmanager refused the alerts; retrying, but a person must look');
      } else log.warn(fields, 'Alertmanager unreachable; the alerts wait in the outbox');
      for (const [account, count] of accountsOf(rows)) {
        ctx.events.emit('alertmanager:failed', { at, alertmanager: target, account, alerts: count });
      }
    },
  };
}

function countBy(items: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return counts;
}
