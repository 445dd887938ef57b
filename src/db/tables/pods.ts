import { sql } from 'drizzle-orm';
import { blob, check, index, integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { accountColumn, trackedColumns } from './columns.js';

/** The latest state of every Pod ever seen; vanished Pods keep their row with `gone_at` set. */
export const pods = sqliteTable(
  'pods',
  {
    account: accountColumn(),
    podId: text('pod_id').notNull(),
    name: text('name').notNull(),
    status: text('status').notNull(),
    /** The v2 `cost`: USD per hour, 0 when the Pod is not running. */
    costPerHr: real('cost_per_hr').notNull(),
    gpuTypeId: text('gpu_type_id'),
    gpuCount: integer('gpu_count'),
    cpuTypeId: text('cpu_type_id'),
    cloud: text('cloud'),
    dataCenterId: text('data_center_id'),
    clusterId: text('cluster_id'),
    clusterRole: text('cluster_role'),
    /** Size of the persistent mount (volume disk), billed while stopped too. */
    volumeGb: integer('volume_gb'),
    networkVolumeId: text('network_volume_id'),
    /** Only the env names the configuration cares about (owner, team…), never secrets. */
    env: text('env', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    actions: text('actions', { mode: 'json' }).$type<string[]>().notNull(),
    /**
     * The v2 `locked`, 1 when the owner locked the Pod against stopping (0 otherwise): the idle
     * rule never stops it. A plain integer, so a poll compares it as stored.
     */
    locked: integer('locked').notNull().default(0),
    createdAt: integer('created_at'),
    startedAt: integer('started_at'),
    ...trackedColumns(),
  },
  (t) => [primaryKey({ columns: [t.account, t.podId] }), index('pods_live_idx').on(t.account, t.goneAt)],
);

/**
 * When each account's Pod list was last polled. A poll that finds every live Pod as stored (the
 * usual minute) writes this one row instead of moving last_seen_at on every Pod's row (2,000 row
 * writes a minute at `large`). So a live Pod's row holds the time the Pods were last written
 * (`synced_at`), and when its last_seen_at equals `synced_at` it was seen by every poll since:
 * its last_seen_at is `seen_at`. The next poll that changes anything writes that time into the
 * rows first, so gone Pods and the Pods a poll could not read keep their own.
 */
export const podLists = sqliteTable('pod_lists', {
  account: text('account').primaryKey(),
  seenAt: integer('seen_at').notNull(),
  syncedAt: integer('synced_at').notNull(),
});

export const sampleStates = ['known', 'unknown'] as const;
export type SampleState = (typeof sampleStates)[number];

/**
 * One utilization sample per Pod per poll: the largest table by far (2,000 Pods polled every
 * minute are 2.9 million rows a day), so every byte of a row counts. WITHOUT ROWID (migration
 * 0011, by hand): the primary key is the table, instead of a rowid b-tree plus an index that
 * repeats the key. The key leads with (account, observed_at), so "every Pod's samples of the last
 * N minutes" is one range scan whose cost depends on the window, not on the history held.
 * Utilization percentages are integers (api-notes: 0–100), which SQLite stores in one byte
 * even in a REAL column.
 */
export const podSamples = sqliteTable(
  'pod_samples',
  {
    account: accountColumn(),
    podId: text('pod_id').notNull(),
    observedAt: integer('observed_at').notNull(),
    /** 1 when the API gave a runtime, 0 when not (unknown is not idle): no text per row. */
    known: integer('known').notNull(),
    uptimeS: integer('uptime_s'),
    /**
     * Every GPU's figure (JSON) only when it says more than the busiest GPU's: Pods with two or
     * more GPUs, or none ([]). NULL otherwise: a one-GPU Pod's list is [max_gpu_util], and an
     * unknown one's is null. src/db/pods.ts writes and reads it so.
     */
    gpuUtil: text('gpu_util'),
    gpuMemoryUtil: text('gpu_memory_util'),
    maxGpuUtil: real('max_gpu_util'),
    maxGpuMemoryUtil: real('max_gpu_memory_util'),
    cpuUtil: real('cpu_util'),
    memoryUtil: real('memory_util'),
  },
  (t) => [
    primaryKey({ columns: [t.account, t.observedAt, t.podId] }),
    check('pod_samples_known_check', sql.raw('"known" IN (0, 1)')),
  ],
);

/**
 * Aggregates of raw samples per bucket. GPU figures are of each sample's busiest GPU (what an
 * idle rule looks at); averages cover known samples only.
 */
function rollupTable<N extends string>(name: N) {
  return sqliteTable(
    name,
    {
      account: accountColumn(),
      podId: text('pod_id').notNull(),
      bucketStartAt: integer('bucket_start_at').notNull(),
      knownCount: integer('known_count').notNull(),
      unknownCount: integer('unknown_count').notNull(),
      avgGpuUtil: real('avg_gpu_util'),
      maxGpuUtil: real('max_gpu_util'),
      avgGpuMemoryUtil: real('avg_gpu_memory_util'),
      maxGpuMemoryUtil: real('max_gpu_memory_util'),
      avgCpuUtil: real('avg_cpu_util'),
      maxCpuUtil: real('max_cpu_util'),
      avgMemoryUtil: real('avg_memory_util'),
      maxMemoryUtil: real('max_memory_util'),
    },
    // WITHOUT ROWID (migration 0011, by hand), keyed by time like the raw samples: retention
    // deletes by bucket time, and one b-tree replaces a rowid table, its key's index and a
    // second index on (account, bucket_start_at).
    (t) => [primaryKey({ columns: [t.account, t.bucketStartAt, t.podId] })],
  );
}

export const podSamples5m = rollupTable('pod_samples_5m');
export const podSamples1h = rollupTable('pod_samples_1h');
export type PodSampleRollupTable = typeof podSamples5m | typeof podSamples1h;

/**
 * Per Pod, the known samples whose busiest-GPU figure is above that of every later known sample
 * (a staircase falling towards now): the busiest figure over [from, now] is the figure of the
 * Pod's earliest row at or after `from`, read without the raw window. Kept equal to what
 * pod_samples gives by src/db/util-peaks.ts, in the sample writer's and retention's transactions.
 * WITHOUT ROWID (migration 0025, by hand), keyed by Pod: the writer's deletes are one Pod's rows.
 */
export const podUtilPeaks = sqliteTable(
  'pod_util_peaks',
  {
    account: accountColumn(),
    podId: text('pod_id').notNull(),
    observedAt: integer('observed_at').notNull(),
    maxGpuUtil: real('max_gpu_util').notNull(),
  },
  (t) => [primaryKey({ columns: [t.account, t.podId, t.observedAt] })],
);

/**
 * Per Pod with a stored sample, the ends of its samples: the latest, the latest known (runtime
 * reported), and the first after that known one (null when the latest sample is known). The
 * stuck-starting check reads only the Pods whose latest sample is unknown, without the raw
 * window. Kept equal to what pod_samples gives by src/db/sample-ends.ts, in the sample writer's
 * and retention's transactions. WITHOUT ROWID (migration 0026, by hand): one row per Pod.
 */
export const podSampleEnds = sqliteTable(
  'pod_sample_ends',
  {
    account: accountColumn(),
    podId: text('pod_id').notNull(),
    latestAt: integer('latest_at').notNull(),
    latestKnownAt: integer('latest_known_at'),
    unknownSince: integer('unknown_since'),
  },
  (t) => [primaryKey({ columns: [t.account, t.podId] })],
);

/**
 * Per Pod, its recent samples packed in one row: every sample of the Pod observed at or after
 * `covered_from`, and no other, as the idle rule reads them (oldest first; `samples` is five
 * runs of little-endian float64, one per column: observed_at, known, uptime_s, max_gpu_util,
 * max_gpu_memory_util, a null figure as NaN). A tick reads one row per judged Pod instead of one
 * row per sample. Kept equal to what pod_samples gives by src/db/sample-tails.ts, in the sample
 * writer's and retention's transactions. A rowid table: a row is larger than a WITHOUT ROWID
 * b-tree keeps in its page, and reading the spilled rest cost three times the read.
 */
export const podSampleTails = sqliteTable(
  'pod_sample_tails',
  {
    account: accountColumn(),
    podId: text('pod_id').notNull(),
    coveredFrom: integer('covered_from').notNull(),
    latestAt: integer('latest_at').notNull(),
    samples: blob('samples', { mode: 'buffer' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.account, t.podId] })],
);
