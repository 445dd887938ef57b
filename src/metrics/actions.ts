import { Gauge } from 'prom-client';
import { freshnessOf } from '../actions/guards.js';
import { lastSuccessAt } from '../db/collector-runs.js';
import type { ReceiptDecision } from '../db/schema.js';
import { cronIntervalMs } from '../scheduler/cron.js';
import { counter, gauge } from './account-series.js';
import { accountNames, type MetricsContext, refreshedAccounts } from './source.js';

/** The receipt decisions that end a stop attempt: sent, recorded only, refused by a guard, failed. */
export const STOP_RESULTS = ['stopped', 'dry_run', 'blocked', 'failed'] as const satisfies readonly ReceiptDecision[];

const isStopResult = (decision: string): decision is (typeof STOP_RESULTS)[number] =>
  (STOP_RESULTS as readonly string[]).includes(decision);

/**
 * Stop decisions from the `action:decided` events (every series at 0 from the start), and
 * whether stops are frozen: the Pod collector's last success in the database, compared at the
 * scrape as the fresh-data guard compares it.
 */
export function registerActionMetrics({ registry, source, config, clock, onClose, refreshOn }: MetricsContext): void {
  const stops = counter(registry, {
    name: 'podwarden_stops_total',
    help: 'Stop decisions of the idle ladder by result: stopped, dry_run (recorded, not sent), blocked (by a guard) and failed.',
    labelNames: ['account', 'result'],
  });
  for (const account of accountNames(config)) for (const result of STOP_RESULTS) stops.inc({ account, result }, 0);

  // As the database had it at the last evaluation tick or Pod collection, whichever process ran it.
  const podsSucceededAt = new Map<string, number | null>();
  const intervalMs = cronIntervalMs(config.collectors.pods.schedule, clock.now());
  const frozen: Gauge<'account'> = gauge(registry, {
    name: 'podwarden_actions_frozen',
    help: "1 while every stop of the account's idle Pods is frozen because its Pod data is stale (the fresh-data guard), else 0; absent without idle rules.",
    labelNames: ['account'],
    collect() {
      if (config.idle.rules.length === 0) return;
      const now = clock.now();
      for (const [account, last] of podsSucceededAt) {
        frozen.set({ account }, freshnessOf(last, now, intervalMs).fresh ? 0 : 1);
      }
    },
  });
  if (config.idle.rules.length > 0) {
    refreshOn(['tick', 'pods'], async (at) => {
      for (const account of refreshedAccounts(config, at)) {
        podsSucceededAt.set(account, await lastSuccessAt(source.db, account, 'pods'));
      }
    });
  }

  onClose(
    source.events.on('action:decided', (event) => {
      if (isStopResult(event.decision)) stops.inc({ account: event.account, result: event.decision });
    }),
  );
}
