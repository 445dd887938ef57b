import { freshnessOf } from '../actions/guards.js';
import type { Config } from '../config/schema.js';
import { lastSuccessAt } from '../db/collector-runs.js';
import { pingDatabase } from '../db/ping.js';
import { formatDuration } from '../duration.js';
import { cronIntervalMs } from '../scheduler/cron.js';
import type { MetricsSource } from './source.js';

export interface Readiness {
  ready: boolean;
  /** Why not, one line per problem; empty when ready. */
  reasons: string[];
}

/**
 * Ready: the database answers and can be written, and every account's Pods (when collected) are
 * fresh by the rule the stop guards apply.
 */
export async function checkReadiness(source: MetricsSource, config: Config, now: number): Promise<Readiness> {
  const reasons: string[] = [];
  const databaseProblem = await probeDatabase(source);
  if (databaseProblem) return { ready: false, reasons: [databaseProblem] };
  if (source.enabledCollectors().includes('pods')) {
    const intervalMs = cronIntervalMs(config.collectors.pods.schedule, now);
    for (const { name: account } of config.accounts) {
      const last = await lastSuccessAt(source.db, account, 'pods');
      const { fresh, limitMs } = freshnessOf(last, now, intervalMs);
      if (last === null) reasons.push(`account ${account}: Pods not collected successfully yet`);
      else if (!fresh) {
        const age = formatDuration(Math.round((now - last) / 1000) * 1000);
        reasons.push(`account ${account}: Pods last collected ${age} ago (limit ${formatDuration(limitMs)})`);
      }
    }
  }
  return { ready: reasons.length === 0, reasons };
}

async function probeDatabase(source: MetricsSource): Promise<string | undefined> {
  if (!source.db.sqlite.open) return 'database: closed';
  const writeProblem = source.databaseWriteProblem();
  if (writeProblem) return `database: cannot be written (${writeProblem})`;
  try {
    await pingDatabase(source.db);
    return undefined;
  } catch (error) {
    return `database: ${(error as Error).message}`;
  }
}
