import type { Config } from '../config/schema.js';
import { type CollectorRunRecord, lastSuccessAt, recentRuns } from '../db/collector-runs.js';
import { cronIntervalMs } from '../scheduler/cron.js';
import type { MetricsSource } from './source.js';

/** One enabled collector of one account, as /api/status and the status page show it. */
export interface CollectorHealth {
  account: string;
  collector: string;
  schedule: string;
  intervalMs: number;
  lastSuccessAt: number | null;
  lastRun: CollectorRunRecord | undefined;
}

/** The health of every enabled collector for every account, from the collector_runs table. */
export function collectorHealth(source: MetricsSource, config: Config, now: number): CollectorHealth[] {
  return config.accounts.flatMap(({ name: account }) =>
    source.enabledCollectors().map((collector) => {
      const { schedule } = config.collectors[collector];
      return {
        account,
        collector,
        schedule,
        intervalMs: cronIntervalMs(schedule, now),
        lastSuccessAt: lastSuccessAt(source.db, account, collector),
        lastRun: recentRuns(source.db, { account, collector, limit: 1 })[0],
      };
    }),
  );
}
