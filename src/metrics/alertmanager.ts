import { Gauge } from 'prom-client';
import { queuedDeliveries } from '../db/alertmanager-outbox.js';
import { counter, gauge } from './account-series.js';
import { accountNames, type MetricsContext } from './source.js';

/**
 * Alerts handed to each Alertmanager: posts taken and failed from the delivery events (0 from
 * the start), and what waits in the outbox after each delivery and tick.
 */
export function registerAlertmanagerMetrics({ registry, source, config, onClose, refreshOn }: MetricsContext): void {
  const urls = config.alerts.alertmanager?.urls ?? [];
  if (urls.length === 0) return;
  const accounts = [...accountNames(config), 'all'];
  const sent = counter(registry, {
    name: 'podwarden_alertmanager_alerts_sent_total',
    help: 'Alerts an Alertmanager took (HTTP 200 to POST /api/v2/alerts), resends included, by Alertmanager URL and account.',
    labelNames: ['alertmanager', 'account'],
  });
  const failed = counter(registry, {
    name: 'podwarden_alertmanager_alerts_failed_total',
    help: 'Alerts whose POST to an Alertmanager failed (they stay queued and are retried), by Alertmanager URL and account.',
    labelNames: ['alertmanager', 'account'],
  });
  const queued: Gauge<'alertmanager' | 'account'> = gauge(registry, {
    name: 'podwarden_alertmanager_alerts_queued',
    help: 'Alerts waiting to reach an Alertmanager: never taken yet, a resolved notice not yet taken, or failing; by Alertmanager URL and account.',
    labelNames: ['alertmanager', 'account'],
  });
  // What waits changes where deliveries are tried (each emits sent or failed) and on the
  // evaluation tick, which queues the alerts it decided.
  const refreshQueued = async () => {
    const rows = await queuedDeliveries(source.db);
    queued.reset();
    for (const alertmanager of urls) for (const account of accounts) queued.set({ alertmanager, account }, 0);
    for (const row of rows) {
      if (urls.includes(row.target)) queued.set({ alertmanager: row.target, account: row.account }, row.queued);
    }
  };
  refreshOn(['tick'], refreshQueued);
  for (const [event, counted] of [
    ['alertmanager:sent', sent],
    ['alertmanager:failed', failed],
  ] as const) {
    for (const alertmanager of urls) for (const account of accounts) counted.inc({ alertmanager, account }, 0);
    onClose(
      source.events.on(event, async (e) => {
        counted.inc({ alertmanager: e.alertmanager, account: e.account }, e.alerts);
        await refreshQueued();
      }),
    );
  }
}
