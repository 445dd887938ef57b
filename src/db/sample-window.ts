import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import { readSampleTails, type TailColumns } from './sample-tails.js';
import { perDatabase } from './statements.js';

/** One column of a series: an array, or a view of a sample tail's packed blob. */
type Column = ArrayLike<number>;

/**
 * One Pod's recent samples, column by column, oldest first, from index `start`. A null figure is
 * NaN, so each column holds plain numbers only (the idle rule walks tens of thousands of them
 * every minute).
 */
export interface SampleSeries {
  readonly podId: string;
  readonly start: number;
  readonly observedAt: Column;
  /** 1 for a known sample (runtime reported), 0 for an unknown one. */
  readonly known: Column;
  readonly uptimeS: Column;
  readonly maxGpuUtil: Column;
  readonly maxGpuMemoryUtil: Column;
}

type Row = [
  podId: string,
  observedAt: number,
  known: number,
  uptimeS: number | null,
  gpu: number | null,
  memory: number | null,
];

// Arrays, not objects: one range scan of the primary key (account, observed_at, pod_id); of the
// Pods listed (a JSON array of ids), SQLite skips the others before a row is built.
const statements = perDatabase(({ sqlite }) => {
  const since = `SELECT pod_id, observed_at, known, uptime_s, max_gpu_util, max_gpu_memory_util
    FROM pod_samples WHERE account = ? AND observed_at >= ?`;
  return {
    since: sqlite.prepare<[string, number], Row>(`${since} ORDER BY observed_at, pod_id`).raw(),
    sinceOf: sqlite
      .prepare<[string, number, string], Row>(
        `${since} AND pod_id IN (SELECT value FROM json_each(?)) ORDER BY observed_at, pod_id`,
      )
      .raw(),
  };
});

/**
 * The samples observed at or after `from` (and any newer than `now`), per Pod, of every Pod or of
 * the Pods in `podIds`. The Pods listed are read from their tails (pod_sample_tails, one row
 * each); every other Pod, and a listed one whose tail does not reach back to `from`, from one
 * range scan of pod_samples' primary key: the cost follows the window, never the stored history.
 * Runs inside a store transaction (the tick's snapshot); sampleWindow for callers outside one.
 */
export function windowSamples(
  database: Database,
  account: string,
  from: number,
  _now: number,
  podIds?: readonly string[],
): ReadonlyMap<string, SampleSeries> {
  const series = new Map<string, SampleSeries>();
  let unread = podIds;
  if (podIds !== undefined) {
    const tails = readSampleTails(database, account, from, podIds);
    for (const [podId, columns] of tails.series) series.set(podId, { podId, start: 0, ...columns });
    unread = tails.uncovered;
  }
  if (unread?.length === 0) return series;
  const read = new Map<string, SampleSeries & TailColumns>();
  const rows =
    unread === undefined
      ? statements(database).since.all(account, from)
      : statements(database).sinceOf.all(account, from, JSON.stringify(unread));
  for (const [podId, observedAt, known, uptimeS, gpu, memory] of rows) {
    let one = read.get(podId);
    if (one === undefined) {
      one = { podId, start: 0, observedAt: [], known: [], uptimeS: [], maxGpuUtil: [], maxGpuMemoryUtil: [] };
      read.set(podId, one);
      series.set(podId, one);
    }
    one.observedAt.push(observedAt);
    one.known.push(known);
    one.uptimeS.push(uptimeS ?? Number.NaN);
    one.maxGpuUtil.push(gpu ?? Number.NaN);
    one.maxGpuMemoryUtil.push(memory ?? Number.NaN);
  }
  return series;
}

export const sampleWindow = outsideTransaction(windowSamples);
