import type { Database } from './open.js';
import type { BucketSize } from './schema.js';
import { cachedRead, perDatabase } from './statements.js';

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
    { podId: string; endedAt: number; firstStart: number }
  >(
    // From the daily rollup: a day holds a bucket starting at or after `since` when it ends after
    // it, and its latest compute bucket counts when that bucket starts at or after `since` (then
    // compute_end, the latest end of the day's compute buckets, is that bucket's end).
    `SELECT resource_id AS podId, max(compute_end) AS endedAt, min(compute_start) AS firstStart FROM billing_days
     WHERE account = @account AND kind = 'pods' AND bucket_size = @bucketSize
       AND day_start > @since - 86400000 AND resource_id IN (SELECT value FROM json_each(@podIds))
       AND compute_start >= @since
     GROUP BY resource_id`,
  ),
}));

/** A reading of the samples since `from`, which every start up to `validThrough` reads alike. */
interface ActivityReading {
  from: number;
  validThrough: number;
  activity: readonly EndpointActivity[];
}

// Per account until the samples are written (every few minutes) or deleted, while the rule asks
// every tick with a start that moves with the clock.
const readings = cachedRead((_database: Database, _account: string): { reading?: ActivityReading } => ({}));

/**
 * Every endpoint's worker activity since `from`. A later start reads the same samples as long as
 * it does not pass the oldest sample read, so until then (and until the samples change) the
 * last reading is returned. Shared between callers: do not modify.
 */
export function endpointActivity(database: Database, account: string, from: number): readonly EndpointActivity[] {
  const kept = readings.get(database, account);
  const last = kept.reading;
  if (last && from >= last.from && from <= last.validThrough) return last.activity;
  const activity = statements(database).activity.all({ account, from });
  const oldest = activity.reduce((min, endpoint) => Math.min(min, endpoint.firstAt), Number.POSITIVE_INFINITY);
  kept.reading = { from, validThrough: oldest, activity };
  return activity;
}

/** Called by every writer of endpoint_worker_samples (inserts, retention). */
export function workerSamplesChanged(database: Database): void {
  readings.invalidate(database);
}

/** Which network volumes live Pods mount, and when a Pod last held each of the others. */
export interface VolumeMounts {
  mounted: ReadonlySet<string>;
  /** Per volume no live Pod mounts: when the last Pod holding it went away. */
  lastMountedAt: ReadonlyMap<string, number>;
}

// Per account, with the live Pods' volumes it was read under, until another connection commits.
// The Pod poll writes every minute, but a gone Pod's row is never written again unless the Pod
// comes back (then it is live): what is read here changes only when the live Pods holding a
// volume do.
const mountReadings = cachedRead(
  (_database: Database, _account: string): { reading?: { live: string; mounts: VolumeMounts } } => ({}),
);

/**
 * The volumes the account's live Pods mount (`live`, as livePods lists them) and, for every
 * other volume a Pod ever held, when the last one went away. The same object while the live
 * Pods holding a volume stay the same: shared between callers, do not modify.
 */
export function volumeMounts(
  database: Database,
  account: string,
  live: readonly { podId: string; networkVolumeId: string | null }[],
): VolumeMounts {
  let key = mountKeys.get(live);
  if (key === undefined) {
    key = '';
    for (const pod of live) if (pod.networkVolumeId !== null) key += `${pod.podId}\u0000${pod.networkVolumeId}\u0000`;
    mountKeys.set(live, key);
  }
  const kept = mountReadings.get(database, account);
  if (kept.reading?.live === key) return kept.reading.mounts;
  const mounted = new Set<string>();
  for (const pod of live) if (pod.networkVolumeId !== null) mounted.add(pod.networkVolumeId);
  const lastMountedAt = new Map<string, number>();
  for (const [volumeId, at] of statements(database).goneMounts.all(account)) {
    if (!mounted.has(volumeId)) lastMountedAt.set(volumeId, at);
  }
  const mounts = { mounted, lastMountedAt };
  kept.reading = { live: key, mounts };
  return mounts;
}

// The key of each live Pod list, made once: livePods hands out the same list until the Pods
// change, and at a large account building it was most of the check's time every tick.
const mountKeys = new WeakMap<readonly object[], string>();

/** A reading since `since`, which every start up to `validThrough` reads alike. */
interface ComputeReading {
  since: number;
  validThrough: number;
  endedAt: ReadonlyMap<string, number>;
}

// Per account, bucket size and Pods until billing is written (billedSpendChanged), while the rule
// asks every tick with a start that moves with the clock.
const computeReadings = cachedRead((_database: Database, _key: string): { reading?: ComputeReading } => ({}));

/**
 * When each of these Pods' billed compute (GPU or CPU) last ended since `since`: it has been
 * stopped from then on. Pods without compute since `since` are absent. The bound keeps the cost
 * to the buckets after it, which matters with hundreds of stopped Pods evaluated every minute. A
 * later start counts the same days as long as it does not pass the earliest compute they hold,
 * so until then (and until billing is written) the last reading is returned: do not modify.
 */
export function lastComputeAt(
  database: Database,
  account: string,
  bucketSize: BucketSize,
  podIds: readonly string[],
  since: number,
): ReadonlyMap<string, number> {
  if (podIds.length === 0) return new Map();
  let ids = idsText.get(podIds);
  if (ids === undefined) {
    ids = JSON.stringify(podIds);
    idsText.set(podIds, ids);
  }
  const kept = computeReadings.get(database, `${account}\u0000${bucketSize}\u0000${ids}`);
  const last = kept.reading;
  if (last && since >= last.since && since <= last.validThrough) return last.endedAt;
  const rows = statements(database).lastCompute.all({ account, bucketSize, podIds: ids, since });
  const endedAt = new Map(rows.map((row) => [row.podId, row.endedAt]));
  // Spread into Math.min, thousands of stopped Pods would be as many arguments.
  const earliest = rows.reduce((min, row) => Math.min(min, row.firstStart), Number.POSITIVE_INFINITY);
  kept.reading = { since, validThrough: earliest, endedAt };
  return endedAt;
}

// The key of each list of Pod ids, made once: the waste rule asks with the same list every tick
// while its stopped Pods stay the same (hundreds of ids at a large account).
const idsText = new WeakMap<readonly string[], string>();

/** Called with billedSpendChanged by every writer of billing_records and billing_days. */
export function billedComputeChanged(database: Database): void {
  computeReadings.invalidate(database);
}
