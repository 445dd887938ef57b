import type { RunReport } from '../collectors/run.js';
import { lastSuccesses } from '../db/collector-runs.js';
import type { CollectorOutcome } from '../db/schema.js';
import { cronIntervalMs } from '../scheduler/cron.js';
import { counter, gauge } from './account-series.js';
import { accountNames, type MetricsContext } from './source.js';

/** The outcomes of a run that count as errors, each its own `kind`. */
export const COLLECTOR_ERROR_KINDS = ['error', 'no_data', 'aborted'] as const satisfies readonly CollectorOutcome[];
type ErrorKind = (typeof COLLECTOR_ERROR_KINDS)[number];

const isErrorKind = (outcome: CollectorOutcome): outcome is ErrorKind =>
  (COLLECTOR_ERROR_KINDS as readonly string[]).includes(outcome);

/**
 * Collector health from the `collector:finished` events (collectors never report on themselves).
 * Every series exists at 0 from the start, so `rate()` works before the first run; the last
 * success survives restarts because it starts from the database.
 */
export function registerCollectorMetrics({
  registry,
  source,
  config,
  clock,
  onClose,
  refreshOn,
}: MetricsContext): void {
  const labelNames = ['account', 'collector'] as const;
  const lastSuccess = gauge(registry, {
    name: 'podwarden_collector_last_success_timestamp_seconds',
    help: 'When the collector last finished a run successfully for the account, as a Unix time; 0 when it never has.',
    labelNames,
  });
  const duration = gauge(registry, {
    name: 'podwarden_collector_duration_seconds',
    help: 'How long the latest run of the collector for the account took, whatever its outcome; 0 before the first run.',
    labelNames,
  });
  const interval = gauge(registry, {
    name: 'podwarden_collector_interval_seconds',
    help: "The typical spacing of the collector's schedule, for staleness limits such as three intervals.",
    labelNames,
  });
  const runs = counter(registry, {
    name: 'podwarden_collector_runs_total',
    help: 'Runs of the collector for the account that finished, whatever their outcome.',
    labelNames,
  });
  const errors = counter(registry, {
    name: 'podwarden_collector_errors_total',
    help: 'Runs of the collector for the account that did not succeed, by kind: error (failed), no_data (nothing to read), aborted (shutdown or timeout).',
    labelNames: [...labelNames, 'kind'],
  });

  const now = clock.now();
  for (const account of accountNames(config)) {
    for (const collector of source.enabledCollectors()) {
      const labels = { account, collector };
      lastSuccess.set(labels, 0);
      duration.set(labels, 0);
      interval.set(labels, cronIntervalMs(config.collectors[collector].schedule, now) / 1000);
      runs.inc(labels, 0);
      for (const kind of COLLECTOR_ERROR_KINDS) errors.inc({ ...labels, kind }, 0);
    }
  }

  // Successes the events told of since registering: the first refresh's older reading keeps off them.
  const reported = new Set<string>();
  const keyOf = (account: string, collector: string) => `${account}\u0000${collector}`;
  refreshOn([], async () => {
    const rows = await lastSuccesses(source.db);
    const remembered = new Map(rows.map((row) => [keyOf(row.account, row.collector), row.endedAt]));
    for (const account of accountNames(config)) {
      for (const collector of source.enabledCollectors()) {
        const at = remembered.get(keyOf(account, collector));
        if (at !== undefined && !reported.has(keyOf(account, collector)))
          lastSuccess.set({ account, collector }, at / 1000);
      }
    }
  });

  onClose(
    source.events.on('collector:finished', (report: RunReport) => {
      const labels = { account: report.account, collector: report.collector };
      duration.set(labels, (report.endedAt - report.startedAt) / 1000);
      runs.inc(labels);
      if (report.outcome === 'ok') {
        reported.add(keyOf(report.account, report.collector));
        lastSuccess.set(labels, report.endedAt / 1000);
      } else if (isErrorKind(report.outcome)) errors.inc({ ...labels, kind: report.outcome });
    }),
  );
}
