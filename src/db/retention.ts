import type BetterSqlite3 from 'better-sqlite3';
import { pruneFinishedDeliveries } from './alertmanager-outbox.js';
import { pruneUsedLinks } from './links.js';
import { pruneFinishedMessages } from './notifications.js';
import type { Database } from './open.js';
import { dropSampleEndsBefore } from './sample-ends.js';
import { dropSampleTailsBefore } from './sample-tails.js';
import { perDatabase } from './statements.js';
import { dropPeaksBefore } from './util-peaks.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** How long each level of the samples is kept (config `database.retention`). */
export interface RetentionPolicy {
  /** Raw Pod and endpoint-worker samples, and finished collector runs (default 2 days). */
  rawSamplesMs: number;
  /** 5-minute rollups of the Pod samples (default 7 days). */
  fiveMinuteRollupsMs: number;
  /** Hourly rollups of the Pod samples (config key `rollups`, default 400 days). */
  rollupsMs: number;
  /**
   * Used link nonces. A nonce only has to outlive its link: checkLink refuses an expired link
   * before it looks for the nonce, so a nonce kept past the link's life stops nothing more.
   * The daemon keeps them twice `http.linkExpiry` (no link is signed for longer).
   */
  usedLinksMs: number;
  /** Finished rows of every channel's outbox (config key `outbox`, default 30 days). */
  outboxMs: number;
}

/** The policy a configuration sets: `database.retention`, and used links from `http.linkExpiry`. */
export function retentionPolicy(config: {
  database: { retention: Omit<RetentionPolicy, 'usedLinksMs'> };
  http: { linkExpiryMs: number };
}): RetentionPolicy {
  // Twice the longest a link can live: a margin for a link signed before a restart that
  // shortened http.linkExpiry, and for clock skew between replicas.
  return { ...config.database.retention, usedLinksMs: 2 * config.http.linkExpiryMs };
}

export interface RetentionResult {
  /** Rollup rows written (new buckets or buckets merged with late samples). */
  rolled5m: number;
  rolled1h: number;
  rawSamplesDeleted: number;
  rollups5mDeleted: number;
  rollups1hDeleted: number;
  workerSamplesDeleted: number;
  collectorRunsDeleted: number;
  usedLinksDeleted: number;
  /** Message rows of every channel (email's kind of row). */
  emailsDeleted: number;
  /** Episode rows of every channel (Alertmanager's kind of row). */
  alertmanagerDeliveriesDeleted: number;
}

// Averages cover known samples only (unknown is not idle, nor busy). A bucket that already
// exists (samples that arrived after it was rolled) is merged, weighting averages by known count.
const METRICS = ['gpu_util', 'gpu_memory_util', 'cpu_util', 'memory_util'] as const;
const RAW_COLUMN: Record<(typeof METRICS)[number], string> = {
  gpu_util: 'max_gpu_util',
  gpu_memory_util: 'max_gpu_memory_util',
  cpu_util: 'cpu_util',
  memory_util: 'memory_util',
};

function rollupSql(table: string, bucketMs: number): string {
  const columns = METRICS.flatMap((metric) => [`avg_${metric}`, `max_${metric}`]);
  const aggregates = METRICS.flatMap((metric) => {
    const known = `CASE WHEN known = 1 THEN ${RAW_COLUMN[metric]} END`;
    return [`avg(${known})`, `max(${known})`];
  });
  const merges = METRICS.flatMap((metric) => {
    const avg = `avg_${metric}`;
    const max = `max_${metric}`;
    return [
      `${avg} = CASE WHEN ${avg} IS NULL THEN excluded.${avg} WHEN excluded.${avg} IS NULL THEN ${avg}
        ELSE (${avg} * known_count + excluded.${avg} * excluded.known_count) / (known_count + excluded.known_count) END`,
      `${max} = coalesce(max(${max}, excluded.${max}), ${max}, excluded.${max})`,
    ];
  });
  return `INSERT INTO ${table} (account, pod_id, bucket_start_at, known_count, unknown_count, ${columns.join(', ')})
    SELECT account, pod_id, (observed_at / ${bucketMs}) * ${bucketMs},
      sum(known), count(*) - sum(known), ${aggregates.join(', ')}
    FROM pod_samples WHERE account = @account AND observed_at < @cutoff
    -- In the rollup's key order (bucket, then Pod), so new rows append to its b-tree.
    GROUP BY (observed_at / ${bucketMs}), pod_id
    ON CONFLICT (account, pod_id, bucket_start_at) DO UPDATE SET
      ${merges.join(',\n      ')},
      known_count = known_count + excluded.known_count,
      unknown_count = unknown_count + excluded.unknown_count`;
}

/** What is dropped by age alone, per account: table, time column, its retention, and its count. */
const AGED = [
  ['pod_samples_5m', 'bucket_start_at', 'fiveMinuteRollupsMs', 'rollups5mDeleted'],
  ['pod_samples_1h', 'bucket_start_at', 'rollupsMs', 'rollups1hDeleted'],
  ['endpoint_worker_samples', 'observed_at', 'rawSamplesMs', 'workerSamplesDeleted'],
] as const satisfies ReadonlyArray<readonly [string, string, keyof RetentionPolicy, keyof RetentionResult]>;

const statements = perDatabase(({ sqlite }) => ({
  rollup5m: sqlite.prepare(rollupSql('pod_samples_5m', 5 * MINUTE)),
  rollup1h: sqlite.prepare(rollupSql('pod_samples_1h', HOUR)),
  deleteRaw: sqlite.prepare('DELETE FROM pod_samples WHERE account = @account AND observed_at < @cutoff'),
  // A collector that has not succeeded for longer than the retention keeps its last success.
  deleteRuns: sqlite.prepare(
    `DELETE FROM collector_runs WHERE started_at < @cutoff AND outcome IS NOT NULL AND id NOT IN (
       SELECT max(id) FROM collector_runs WHERE outcome = 'ok' GROUP BY account, collector)`,
  ),
}));

/**
 * Rolls raw samples older than the raw retention into 5-minute and hourly buckets and deletes
 * them, in one transaction per account, then drops each rollup level older than its own retention.
 * The raw cutoff is aligned to the hour, so a bucket is rolled whole. Running it twice changes
 * nothing the second time.
 */
export async function applyRetention(
  database: Database,
  policy: RetentionPolicy,
  now: number,
): Promise<RetentionResult> {
  const s = statements(database);
  const rawCutoff = Math.floor((now - policy.rawSamplesMs) / HOUR) * HOUR;
  const counts = { rolled5m: 0, rolled1h: 0, rawSamplesDeleted: 0 };
  for (const account of distinctAccounts(database.sqlite, 'pod_samples')) {
    database.transaction(() => {
      const range = { account, cutoff: rawCutoff };
      counts.rolled5m += s.rollup5m.run(range).changes;
      counts.rolled1h += s.rollup1h.run(range).changes;
      counts.rawSamplesDeleted += s.deleteRaw.run(range).changes;
      dropPeaksBefore(database, account, rawCutoff);
      dropSampleEndsBefore(database, account, rawCutoff);
      dropSampleTailsBefore(database, account, rawCutoff);
    });
  }
  const aged = { rollups5mDeleted: 0, rollups1hDeleted: 0, workerSamplesDeleted: 0 };
  for (const [table, column, kept, counted] of AGED) {
    const drop = database.sqlite.prepare(`DELETE FROM ${table} WHERE account = ? AND ${column} < ?`);
    for (const account of distinctAccounts(database.sqlite, table)) {
      aged[counted] += drop.run(account, now - policy[kept]).changes;
    }
  }
  return {
    ...counts,
    ...aged,
    collectorRunsDeleted: s.deleteRuns.run({ cutoff: now - policy.rawSamplesMs }).changes,
    usedLinksDeleted: await pruneUsedLinks(database, now - policy.usedLinksMs),
    emailsDeleted: await pruneFinishedMessages(database, now - policy.outboxMs, now),
    alertmanagerDeliveriesDeleted: await pruneFinishedDeliveries(database, now - policy.outboxMs, now),
  };
}

/**
 * The accounts present in a table whose index leads with `account`: one index seek per account
 * instead of a scan of millions of samples.
 */
function distinctAccounts(sqlite: BetterSqlite3.Database, table: string): string[] {
  const first = sqlite.prepare(`SELECT min(account) FROM ${table}`).pluck();
  const next = sqlite.prepare(`SELECT min(account) FROM ${table} WHERE account > ?`).pluck();
  const found: string[] = [];
  for (let account = first.get() as string | null; account !== null; account = next.get(account) as string | null) {
    found.push(account);
  }
  return found;
}
