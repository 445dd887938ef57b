import { Counter, Gauge } from 'prom-client';
import { podsFreshness } from '../actions/guards.js';
import type { ReceiptDecision } from '../db/schema.js';
import { cronIntervalMs } from '../scheduler/cron.js';
import { accountNames, type MetricsContext } from './source.js';

/** The receipt decisions that end a stop attempt: sent, recorded only, refused by a guard, failed. */
export const STOP_RESULTS = ['stopped', 'dry_run', 'blocked', 'failed'] as const satisfies readonly ReceiptDecision[];

const isStopResult = (decision: string): decision is (typeof STOP_RESULTS)[number] =>
  (STOP_RESULTS as readonly string[]).includes(decision);

/**
 * What the idle ladder did about stops, from its `action:decided` events (every result of every
 * account at 0 from the start), and whether stops are frozen now because the Pod data is stale:
 * the Pod collector's last success as the database records it (whichever process ran it), one
 * indexed read per account, compared with the time as the fresh-data guard compares it.
 */
export function registerActionMetrics({ registry, source, config, clock, onClose }: MetricsContext): void {
  const stops = new Counter({
    name: 'podwarden_stops_total',
    help: 'Stop decisions of the idle ladder by result: stopped, dry_run (recorded, not sent), blocked (by a guard) and failed.',
    labelNames: ['account', 'result'],
    registers: [registry],
  });
  for (const account of accountNames(config)) for (const result of STOP_RESULTS) stops.inc({ account, result }, 0);

  const intervalMs = cronIntervalMs(config.collectors.pods.schedule, clock.now());
  const frozen: Gauge<'account'> = new Gauge({
    name: 'podwarden_actions_frozen',
    help: "1 while every stop of the account's idle Pods is frozen because its Pod data is stale (the fresh-data guard), else 0; absent without idle rules.",
    labelNames: ['account'],
    registers: [registry],
    collect() {
      if (config.idle.rules.length === 0) return;
      const now = clock.now();
      for (const account of accountNames(config)) {
        frozen.set({ account }, podsFreshness(source.db, account, now, intervalMs).fresh ? 0 : 1);
      }
    },
  });

  onClose(
    source.events.on('action:decided', (event) => {
      if (isStopResult(event.decision)) stops.inc({ account: event.account, result: event.decision });
    }),
  );
}
