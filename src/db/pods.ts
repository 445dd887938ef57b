import type BetterSqlite3 from 'better-sqlite3';
import { byPod } from './group-by.js';
import { type SyncResult, trackedRows, type UnreadableItems } from './latest.js';
import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import { livePodRows, type PodInput, podListPoll, podListSyncing } from './pod-list.js';
import { followSampleEnds } from './sample-ends.js';
import { followSampleTails } from './sample-tails.js';
import { closeGoneSavingsSync, closeStartedSavingsSync } from './savings.js';
import { pods, type SampleState } from './schema.js';
import { perDatabase } from './statements.js';
import { writeFollowingPeaks } from './util-peaks.js';

export { type PodInput, type PodRecord, podListPolledAt, podsLastSeenAt } from './pod-list.js';

/** The account's Pods not gone, by id. */
export const livePods = outsideTransaction(livePodRows);

const syncPodList = trackedRows(pods, 'podId');

const podWrites = perDatabase(({ sqlite }) => ({
  seen: sqlite.prepare<[number, string]>('UPDATE pods SET last_seen_at = ? WHERE account = ? AND gone_at IS NULL'),
  /** Writes into the rows the time the rows seen by every poll since the last sync were last seen. */
  settle: sqlite.prepare<[number, string, number]>(
    'UPDATE pods SET last_seen_at = ? WHERE account = ? AND gone_at IS NULL AND last_seen_at = ?',
  ),
  pollRow: sqlite.prepare<[string, number, number]>(
    `INSERT INTO pod_lists (account, seen_at, synced_at) VALUES (?, ?, ?)
     ON CONFLICT (account) DO UPDATE SET seen_at = excluded.seen_at, synced_at = excluded.synced_at`,
  ),
}));

/**
 * The latest `GET /pods` of an account: upserts every Pod, marks the missing ones gone, and
 * records the poll in pod_lists (see there for what last_seen_at then means).
 */
function syncPodRows(
  database: Database,
  account: string,
  items: readonly PodInput[],
  now: number,
  unreadable?: UnreadableItems,
): SyncResult {
  const writes = podWrites(database);
  return database.transaction(() => {
    const poll = podListPoll(database, account);
    const change = podListSyncing(database, account, items, unreadable, poll);
    if (change === 'none' && poll !== undefined) {
      // The list is the stored live Pods, column for column, each row written by the latest
      // sync (pod-list.ts compared them): the usual minute. No row changes; no Pod is missing.
      writes.pollRow.run(account, now, poll.syncedAt);
      return { upserted: items.length, gone: [] };
    }
    if (change === 'seen') {
      // Only last_seen_at would move (some rows were not written by the latest sync): all of
      // them move, in one statement.
      writes.seen.run(now, account);
      writes.pollRow.run(account, now, now);
      return { upserted: items.length, gone: [] };
    }
    if (poll !== undefined && poll.seenAt !== poll.syncedAt) writes.settle.run(poll.seenAt, account, poll.syncedAt);
    // Before the rows change: a restart is told from the status the previous poll stored.
    closeStartedSavingsSync(database, account, items, now);
    const result = syncPodList(database, account, items, now, unreadable);
    closeGoneSavingsSync(database, account, result.gone, now);
    writes.pollRow.run(account, now, now);
    return result;
  });
}

export const syncPods = outsideTransaction(syncPodRows);

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

/** The sample columns in the order a row's values are bound. */
const SAMPLE_COLUMNS =
  'account, pod_id, observed_at, known, uptime_s, gpu_util, gpu_memory_util, max_gpu_util, max_gpu_memory_util, cpu_util, memory_util';
const SAMPLE_WIDTH = 11;
/** Rows per multi-row INSERT at most, a power of two: one statement step for many rows (11 parameters each, far below SQLite's limit). */
const SAMPLE_BATCH = 64;
/** A re-sent sample replaces itself: every column but the key takes the new row's value. */
const SAMPLE_UPSERT = `ON CONFLICT (account, observed_at, pod_id) DO UPDATE SET known = excluded.known,
  uptime_s = excluded.uptime_s, gpu_util = excluded.gpu_util, gpu_memory_util = excluded.gpu_memory_util,
  max_gpu_util = excluded.max_gpu_util, max_gpu_memory_util = excluded.max_gpu_memory_util,
  cpu_util = excluded.cpu_util, memory_util = excluded.memory_util`;

const sampleWrites = perDatabase(({ sqlite }) => {
  const row = `(${Array(SAMPLE_WIDTH).fill('?').join(', ')})`;
  // By row count, a power of two up to SAMPLE_BATCH (seven statements at most, whatever the
  // poll's size): a poll of a dozen Pods is two statement steps (8 + 4 rows), not a dozen.
  const byRows = new Map<number, BetterSqlite3.Statement>();
  return (rows: number): BetterSqlite3.Statement => {
    let statement = byRows.get(rows);
    if (statement === undefined) {
      const values = Array(rows).fill(row).join(', ');
      statement = sqlite.prepare(`INSERT INTO pod_samples (${SAMPLE_COLUMNS}) VALUES ${values} ${SAMPLE_UPSERT}`);
      byRows.set(rows, statement);
    }
    return statement;
  };
});

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

/**
 * One `GET /pods` poll in one transaction: the list synced (syncPods) and its samples stored
 * (writePodSamples).
 */
export async function storePodPoll(
  database: Database,
  poll: {
    account: string;
    pods: readonly PodInput[];
    unreadable: UnreadableItems;
    samples: readonly PodSampleInput[];
    now: number;
    /** How far back each Pod's sample tail keeps its samples (idleSamplesFrom). */
    tailFrom: number;
  },
): Promise<SyncResult & { sampled: number }> {
  const { account } = poll;
  return database.transaction(() => {
    const { upserted, gone } = syncPodRows(database, account, poll.pods, poll.now, poll.unreadable);
    return { upserted, gone, sampled: writePodSamples(database, account, poll.samples, poll.tailFrom) };
  });
}

/**
 * Stores samples (a re-sent sample replaces itself); the busiest-GPU figures are derived here,
 * once. Each Pod's sample tail keeps what is observed from `tailFrom` on (null: everything).
 */
function writePodSamples(
  database: Database,
  account: string,
  samples: readonly PodSampleInput[],
  tailFrom: number | null = null,
): number {
  const writes = sampleWrites(database);
  const rows = samples.map((sample) => ({
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
  }));
  // Written in key order: each row then lands after the last one, so SQLite appends to the
  // table's last page instead of splitting pages all over the minute's range. The sort is
  // stable, so a sample listed twice is replaced by its later copy, as in list order.
  const ordered = rows.slice().sort((a, b) => a.observedAt - b.observedAt || compareText(a.podId, b.podId));
  const values: Array<string | number | null> = [];
  for (const row of ordered) {
    // In SAMPLE_COLUMNS' order.
    values.push(row.account, row.podId, row.observedAt, row.known, row.uptimeS, row.gpuUtil, row.gpuMemoryUtil);
    values.push(row.maxGpuUtil, row.maxGpuMemoryUtil, row.cpuUtil, row.memoryUtil);
  }
  // Each key once, as stored (of a sample listed twice, the later copy), by Pod oldest first.
  const written = byPod(
    ordered.filter((row, i) => {
      const after = ordered[i + 1];
      return after === undefined || after.observedAt !== row.observedAt || after.podId !== row.podId;
    }),
  );
  database.transaction(() => {
    writeFollowingPeaks(database, account, written, () => {
      let at = 0;
      for (let size = SAMPLE_BATCH; size >= 1; size /= 2) {
        const width = size * SAMPLE_WIDTH;
        for (; values.length - at >= width; at += width) writes(size).run(values.slice(at, at + width));
      }
    });
    // Before the ends follow: a Pod's first tail starts after its latest sample stored until now.
    followSampleTails(database, account, written, tailFrom);
    followSampleEnds(database, account, written);
  });
  return samples.length;
}

export const insertPodSamples = outsideTransaction(writePodSamples);

/**
 * SQLite's BINARY order for the ASCII ids the API gives. Only the speed of the write depends on
 * it: ids that sort otherwise in UTF-16 are stored all the same.
 */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
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
export async function podSamplesBetween(
  database: Database,
  account: string,
  from: number,
  to: number,
): Promise<PodSampleRecord[]> {
  return sampleReads(database)
    .between.all(account, from, to)
    .map(({ known, gpuUtil, gpuMemoryUtil, ...row }) => ({
      ...row,
      state: known === 1 ? 'known' : 'unknown',
      gpuUtil: perGpuList(gpuUtil, row.maxGpuUtil),
      gpuMemoryUtil: perGpuList(gpuMemoryUtil, row.maxGpuMemoryUtil),
    }));
}
