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
export async function collectorHealth(source: MetricsSource, config: Config, now: number): Promise<CollectorHealth[]> {
  const health: CollectorHealth[] = [];
  for (const { name: account } of config.accounts) {
    for (const collector of source.enabledCollectors()) {
      const { schedule } = config.collectors[collector];
      health.push({
        account,
        collector,
        schedule,
        intervalMs: cronIntervalMs(schedule, now),
        lastSuccessAt: await lastSuccessAt(source.db, account, collector),
        lastRun: (await recentRuns(source.db, { account, collector, limit: 1 }))[0],
      });
    }
  }
  return health;
}
