import { type SyncResult, trackedSync, type UnreadableItems } from './latest.js';
import type { Database } from './open.js';
import { type PodInput, podListSyncing } from './pod-list.js';
import { markSamplesWritten } from './sample-window.js';
import { podSamples, pods, type SampleState } from './schema.js';
import { inventoryChanged, perDatabase, placeholdersFor, replaceOnConflict, rowWriter } from './statements.js';

export { livePods, type PodInput, type PodRecord } from './pod-list.js';

const syncPodList = trackedSync(pods, 'podId');

const podWrites = perDatabase(({ sqlite }) => ({
  seen: sqlite.prepare<[number, string]>('UPDATE pods SET last_seen_at = ? WHERE account = ? AND gone_at IS NULL'),
}));

/** The latest `GET /pods` of an account: upserts every Pod, marks the missing ones gone. */
export function syncPods(
  database: Database,
  account: string,
  items: readonly PodInput[],
  now: number,
  unreadable?: UnreadableItems,
): SyncResult {
  if (!podListSyncing(database, account, items, now, unreadable)) {
    return syncPodList(database, account, items, now, unreadable);
  }
  // The list is the stored live Pods, column for column (pod-list.ts compared them): the usual
  // minute. Upserting 2,000 identical rows would move nothing but last_seen_at, so only that
  // moves, in one statement; no Pod is missing, so none is marked gone.
  inventoryChanged(database, pods);
  database.transaction(() => podWrites(database).seen.run(now, account));
  inventoryChanged(database, pods);
  return { upserted: items.length, gone: [] };
}

/** One poll of one Pod. An unknown sample (no runtime) has every utilization null. */
export interface PodSampleInput {
  podId: string;
  observedAt: number;
  state: SampleState;
  uptimeS: number | null;
  /** Per GPU, in index order, 0–100. */
  gpuUtil: number[] | null;
  gpuMemoryUtil: number[] | null;
  cpuUtil: number | null;
  memoryUtil: number | null;
}

/** A stored sample as it was given, with the busiest GPU's figures derived when it was written. */
export interface PodSampleRecord extends PodSampleInput {
  account: string;
  maxGpuUtil: number | null;
  maxGpuMemoryUtil: number | null;
}

const insertSample = perDatabase((database) =>
  rowWriter<typeof podSamples.$inferInsert>(
    database,
    database.db
      .insert(podSamples)
      .values(placeholdersFor(podSamples))
      .onConflictDoUpdate(replaceOnConflict(podSamples, [podSamples.account, podSamples.observedAt, podSamples.podId])),
  ),
);

function maxOf(values: number[] | null): number | null {
  return values && values.length > 0 ? Math.max(...values) : null;
}

/**
 * The per-GPU list as stored: NULL when the busiest GPU's figure says it all (one GPU: the list
 * is [max]; unknown: null), so a sample of the usual one-GPU Pod carries no JSON.
 */
function perGpuColumn(values: number[] | null): string | null {
  return values === null || values.length === 1 ? null : JSON.stringify(values);
}

function perGpuList(stored: string | null, max: number | null): number[] | null {
  if (stored !== null) return JSON.parse(stored) as number[];
  return max === null ? null : [max];
}

/** Stores samples (a re-sent sample replaces itself); the busiest-GPU figures are derived here, once. */
export function insertPodSamples(database: Database, account: string, samples: readonly PodSampleInput[]): number {
  const insert = insertSample(database);
  let oldest = Number.POSITIVE_INFINITY;
  const rows = samples.map((sample) => {
    oldest = Math.min(oldest, sample.observedAt);
    return {
      account,
      podId: sample.podId,
      observedAt: sample.observedAt,
      known: sample.state === 'known' ? 1 : 0,
      uptimeS: sample.uptimeS,
      gpuUtil: perGpuColumn(sample.gpuUtil),
      gpuMemoryUtil: perGpuColumn(sample.gpuMemoryUtil),
      maxGpuUtil: maxOf(sample.gpuUtil),
      maxGpuMemoryUtil: maxOf(sample.gpuMemoryUtil),
      cpuUtil: sample.cpuUtil,
      memoryUtil: sample.memoryUtil,
    };
  });
  // The window is handed the very rows written, so it holds what a read back would.
  markSamplesWritten(database, account, oldest, rows);
  database.transaction(() => {
    for (const row of rows) insert(row);
  });
  return samples.length;
}

type StoredSample = Omit<PodSampleRecord, 'state' | 'gpuUtil' | 'gpuMemoryUtil'> & {
  known: number;
  gpuUtil: string | null;
  gpuMemoryUtil: string | null;
};

const sampleReads = perDatabase(({ sqlite }) => ({
  between: sqlite.prepare<[string, number, number], StoredSample>(
    `SELECT account, pod_id AS podId, observed_at AS observedAt, known, uptime_s AS uptimeS,
       gpu_util AS gpuUtil, gpu_memory_util AS gpuMemoryUtil, max_gpu_util AS maxGpuUtil,
       max_gpu_memory_util AS maxGpuMemoryUtil, cpu_util AS cpuUtil, memory_util AS memoryUtil
     FROM pod_samples WHERE account = ? AND observed_at >= ? AND observed_at <= ?
     ORDER BY observed_at, pod_id`,
  ),
}));

/**
 * Every Pod's samples with from <= observed_at <= to, oldest first, as they were stored: one
 * range scan of the primary key, whatever the length of the history.
 */
export function podSamplesBetween(database: Database, account: string, from: number, to: number): PodSampleRecord[] {
  return sampleReads(database)
    .between.all(account, from, to)
    .map(({ known, gpuUtil, gpuMemoryUtil, ...row }) => ({
      ...row,
      state: known === 1 ? 'known' : 'unknown',
      gpuUtil: perGpuList(gpuUtil, row.maxGpuUtil),
      gpuMemoryUtil: perGpuList(gpuMemoryUtil, row.maxGpuMemoryUtil),
    }));
}
