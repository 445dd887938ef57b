import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import type { BucketSize } from './schema.js';
import { perDatabase } from './statements.js';

/** An endpoint's workers since `from`: its latest summary and when it last had work. */
export interface EndpointActivity {
  endpointId: string;
  latestAt: number;
  running: number;
  idle: number;
  initializing: number;
  unhealthy: number;
  /** The latest sample with running workers, or null when none since `from`. */
  lastBusyAt: number | null;
  firstAt: number;
}

const statements = perDatabase(({ sqlite }) => ({
  // The fold (endpoint_activity, kept by triggers) gives the latest summary and busy time. The
  // first sample since `from`: the endpoints are polled together (every 5 minutes by default),
  // so one grouped read of the quarter hour after `from` finds it for nearly all of them; an
  // endpoint without a sample there seeks its own (a scan from `from` until its first row, which
  // for every endpoint was most of the read's cost at a large account).
  activity: sqlite.prepare<{ account: string; from: number }, EndpointActivity>(
    `SELECT a.endpoint_id AS endpointId, a.latest_at AS latestAt, a.running, a.idle, a.initializing, a.unhealthy,
       CASE WHEN a.last_busy_at >= @from THEN a.last_busy_at END AS lastBusyAt,
       coalesce(f.first_at, (SELECT s.observed_at FROM endpoint_worker_samples s
         WHERE s.account = a.account AND s.observed_at >= @from AND s.endpoint_id = a.endpoint_id
         ORDER BY s.observed_at LIMIT 1)) AS firstAt
     FROM endpoint_activity a
     LEFT JOIN (SELECT endpoint_id, min(observed_at) AS first_at FROM endpoint_worker_samples
       WHERE account = @account AND observed_at >= @from AND observed_at < @from + 900000 GROUP BY endpoint_id) f
       ON f.endpoint_id = a.endpoint_id
     WHERE a.account = @account AND a.latest_at >= @from ORDER BY a.endpoint_id`,
  ),
  goneMounts: sqlite
    .prepare<[string], [string, number]>(
      `SELECT network_volume_id, max(gone_at) FROM pods
       WHERE account = ? AND network_volume_id IS NOT NULL AND gone_at IS NOT NULL GROUP BY network_volume_id`,
    )
    .raw(),
  lastCompute: sqlite.prepare<
    { account: string; bucketSize: string; podIds: string; since: number },
    { podId: string; endedAt: number }
  >(
    // From the daily rollup: a day holds a bucket starting at or after `since` when it ends after
    // it, and its latest compute bucket counts when that bucket starts at or after `since` (then
    // compute_end, the latest end of the day's compute buckets, is that bucket's end).
    `SELECT resource_id AS podId, max(compute_end) AS endedAt FROM billing_days
     WHERE account = @account AND kind = 'pods' AND bucket_size = @bucketSize
       AND day_start > @since - 86400000 AND resource_id IN (SELECT value FROM json_each(@podIds))
       AND compute_start >= @since
     GROUP BY resource_id`,
  ),
}));

/** Every endpoint's worker activity since `from`. */
export function endpointActivityRows(database: Database, account: string, from: number): readonly EndpointActivity[] {
  return statements(database).activity.all({ account, from });
}

export const endpointActivity = outsideTransaction(endpointActivityRows);

/** Which network volumes live Pods mount, and when a Pod last held each of the others. */
export interface VolumeMounts {
  mounted: ReadonlySet<string>;
  /** Per volume no live Pod mounts: when the last Pod holding it went away. */
  lastMountedAt: ReadonlyMap<string, number>;
}

/**
 * The volumes the account's live Pods mount (`live`, as livePods lists them) and, for every
 * other volume a Pod ever held, when the last one went away.
 */
export function volumeMounts(
  database: Database,
  account: string,
  live: readonly { podId: string; networkVolumeId: string | null }[],
): VolumeMounts {
  const mounted = new Set<string>();
  for (const pod of live) if (pod.networkVolumeId !== null) mounted.add(pod.networkVolumeId);
  const lastMountedAt = new Map<string, number>();
  for (const [volumeId, at] of statements(database).goneMounts.all(account)) {
    if (!mounted.has(volumeId)) lastMountedAt.set(volumeId, at);
  }
  return { mounted, lastMountedAt };
}

/**
 * When each of these Pods' billed compute (GPU or CPU) last ended since `since`: it has been
 * stopped from then on. Pods without compute since `since` are absent. The bound keeps the cost
 * to the buckets after it, which matters with hundreds of stopped Pods evaluated every minute.
 */
export function lastComputeRows(
  database: Database,
  account: string,
  bucketSize: BucketSize,
  podIds: readonly string[],
  since: number,
): ReadonlyMap<string, number> {
  if (podIds.length === 0) return new Map();
  const rows = statements(database).lastCompute.all({ account, bucketSize, podIds: JSON.stringify(podIds), since });
  return new Map(rows.map((row) => [row.podId, row.endedAt]));
}

export const lastComputeAt = outsideTransaction(lastComputeRows);
