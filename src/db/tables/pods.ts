import { index, integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { accountColumn, oneOf, trackedColumns } from './columns.js';

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
    createdAt: integer('created_at'),
    startedAt: integer('started_at'),
    ...trackedColumns(),
  },
  (t) => [primaryKey({ columns: [t.account, t.podId] }), index('pods_live_idx').on(t.account, t.goneAt)],
);

export const sampleStates = ['known', 'unknown'] as const;
export type SampleState = (typeof sampleStates)[number];

/**
 * One utilization sample per Pod per poll. The key leads with (account, observed_at), so
 * "every Pod's samples of the last N minutes" is one range scan of the primary-key index whose
 * cost depends on the window, not on how much history the table holds.
 */
export const podSamples = sqliteTable(
  'pod_samples',
  {
    account: accountColumn(),
    podId: text('pod_id').notNull(),
    observedAt: integer('observed_at').notNull(),
    /** `unknown` when the API gave no runtime: unknown is not idle. */
    state: text('state', { enum: sampleStates }).notNull(),
    uptimeS: integer('uptime_s'),
    gpuUtil: text('gpu_util', { mode: 'json' }).$type<number[]>(),
    gpuMemoryUtil: text('gpu_memory_util', { mode: 'json' }).$type<number[]>(),
    maxGpuUtil: real('max_gpu_util'),
    maxGpuMemoryUtil: real('max_gpu_memory_util'),
    cpuUtil: real('cpu_util'),
    memoryUtil: real('memory_util'),
  },
  (t) => [primaryKey({ columns: [t.account, t.observedAt, t.podId] }), oneOf('pod_samples', 'state', sampleStates)],
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
    (t) => [
      primaryKey({ columns: [t.account, t.podId, t.bucketStartAt] }),
      index(`${name}_bucket_idx`).on(t.account, t.bucketStartAt),
    ],
  );
}

export const podSamples5m = rollupTable('pod_samples_5m');
export const podSamples1h = rollupTable('pod_samples_1h');
export type PodSampleRollupTable = typeof podSamples5m | typeof podSamples1h;
