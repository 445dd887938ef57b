/**
 * pod_sample_tails: per Pod, every sample observed at or after `covered_from` (and no other),
 * packed in one row as the idle rule reads them. So:
 * - a write merges the Pod's samples at or after covered_from into its tail (a re-sent one
 *   replaces itself), then drops what is older than the horizon the writer is given and moves
 *   covered_from up to it; a tail left empty is deleted;
 * - a Pod without a tail gets one covering only what follows its latest stored sample (read from
 *   pod_sample_ends before this write follows it): every sample, for a Pod never sampled;
 * - deleting every sample older than a cutoff deletes the tails' samples older than it, and the
 *   tails left empty (Pods gone, or silent since);
 * - a reader asking for samples from before covered_from reads pod_samples for that Pod.
 * Every function here but the read runs inside the transaction of the write it follows.
 */

import type { SamplesByPod } from './group-by.js';
import type { Database } from './open.js';
import { perDatabase } from './statements.js';

/** A sample as written, with the figures the idle rule reads (null: none). */
export interface TailInput {
  readonly observedAt: number;
  readonly known: number;
  readonly uptimeS: number | null;
  readonly maxGpuUtil: number | null;
  readonly maxGpuMemoryUtil: number | null;
}

/** A tail's columns, oldest first, a null figure as NaN (as the idle rule's series hold them). */
export interface TailColumns {
  observedAt: number[];
  known: number[];
  uptimeS: number[];
  maxGpuUtil: number[];
  maxGpuMemoryUtil: number[];
}

const COLUMNS = ['observedAt', 'known', 'uptimeS', 'maxGpuUtil', 'maxGpuMemoryUtil'] as const;

// SQL text: the blob column is read and written raw, one row per Pod, on every poll and tick.
const statements = perDatabase(({ sqlite }) => ({
  put: sqlite.prepare<[string, string, number, number, Buffer]>(
    `INSERT OR REPLACE INTO pod_sample_tails (account, pod_id, covered_from, latest_at, samples)
     VALUES (?, ?, ?, ?, ?)`,
  ),
  update: sqlite.prepare<[number, number, Buffer, string, string]>(
    'UPDATE pod_sample_tails SET covered_from = ?, latest_at = ?, samples = ? WHERE account = ? AND pod_id = ?',
  ),
  drop: sqlite.prepare<[string, string]>('DELETE FROM pod_sample_tails WHERE account = ? AND pod_id = ?'),
  /** The Pod's latest stored sample, as pod_sample_ends holds it before the write follows it. */
  latestStored: sqlite
    .prepare<[string, string], number>('SELECT latest_at FROM pod_sample_ends WHERE account = ? AND pod_id = ?')
    .pluck(),
  dropStale: sqlite.prepare<[string, number]>('DELETE FROM pod_sample_tails WHERE account = ? AND latest_at < ?'),
  older: sqlite
    .prepare<[string, number], [string, number, Buffer]>(
      'SELECT pod_id, covered_from, samples FROM pod_sample_tails WHERE account = ? AND covered_from < ?',
    )
    .raw(),
  // The Pods listed (a JSON array of ids), one primary-key lookup each (a join on json_each
  // would scan the account's tails once per id).
  of: sqlite
    .prepare<[string, string], [string, number, Buffer]>(
      `SELECT pod_id, covered_from, samples FROM pod_sample_tails
       WHERE account = ? AND pod_id IN (SELECT value FROM json_each(?))`,
    )
    .raw(),
}));

/** A tail's columns from its blob: five runs of float64, one per column. */
function unpackTail(blob: Buffer): Float64Array {
  // A Float64Array needs an 8-byte aligned offset: copy when the driver's buffer has none.
  if (blob.byteOffset % 8 === 0) return new Float64Array(blob.buffer, blob.byteOffset, blob.byteLength / 8);
  return new Float64Array(new Uint8Array(blob).buffer);
}

/**
 * A blob's columns from the first sample at or after `from` on (undefined: none is), as views of
 * one aligned copy of the blob: no value is copied out.
 */
function columnsOf(blob: Buffer, from = Number.NEGATIVE_INFINITY): TailView | undefined {
  const packed = unpackTail(blob);
  const n = packed.length / COLUMNS.length;
  const start = firstFrom(packed, 0, n, from);
  if (start === n) return undefined;
  const column = (c: number) => packed.subarray(c * n + start, (c + 1) * n);
  return {
    observedAt: column(0),
    known: column(1),
    uptimeS: column(2),
    maxGpuUtil: column(3),
    maxGpuMemoryUtil: column(4),
  };
}

/** A tail's columns as read, oldest first (see TailColumns). */
export type TailView = { readonly [name in keyof TailColumns]: Float64Array };

const emptyTail = (): TailColumns => ({ observedAt: [], known: [], uptimeS: [], maxGpuUtil: [], maxGpuMemoryUtil: [] });

function pack(tail: TailColumns | TailView, from: number): Buffer {
  const n = tail.observedAt.length - from;
  const packed = new Float64Array(n * COLUMNS.length);
  for (const [c, name] of COLUMNS.entries()) packed.set(tail[name].slice(from), c * n);
  return Buffer.from(packed.buffer);
}

/** A sample's values in COLUMNS' order, a null figure as NaN. */
const valuesOf = (sample: TailInput) => [
  sample.observedAt,
  sample.known,
  sample.uptimeS ?? Number.NaN,
  sample.maxGpuUtil ?? Number.NaN,
  sample.maxGpuMemoryUtil ?? Number.NaN,
];

/** Adds samples (oldest first, each time once) to a tail, a sample at a time already held replacing it. */
function merge(tail: TailColumns, added: readonly TailInput[]): void {
  for (const sample of added) {
    const times = tail.observedAt;
    let at = times.length;
    while (at > 0 && (times[at - 1] as number) > sample.observedAt) at -= 1;
    const replaces = at > 0 && times[at - 1] === sample.observedAt;
    const values = valuesOf(sample);
    for (const [c, name] of COLUMNS.entries()) {
      tail[name].splice(replaces ? at - 1 : at, replaces ? 1 : 0, values[c] as number);
    }
  }
}

/** The index of the first time at or after `from` (the length when none is). */
function firstFrom(times: ArrayLike<number>, start: number, end: number, from: number): number {
  let lo = start;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((times[mid] as number) < from) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Follows samples just written (oldest first per Pod, each key once, as stored) into each Pod's
 * tail, keeping what is observed at or after `keepFrom` (null: everything). Runs before
 * pod_sample_ends follows the same write.
 */
export function followSampleTails(
  database: Database,
  account: string,
  written: SamplesByPod<TailInput>,
  keepFrom: number | null,
): void {
  const s = statements(database);
  // The tails of the Pods written, read in one statement.
  const tails = new Map<string, [number, Buffer]>();
  for (const [podId, from, blob] of s.of.all(account, JSON.stringify([...written.keys()])))
    tails.set(podId, [from, blob]);
  for (const [podId, listed] of written) {
    const stored = tails.get(podId);
    if (stored !== undefined && appended(database, account, podId, stored, listed, keepFrom)) continue;
    let coveredFrom: number;
    let tail: TailColumns;
    if (stored === undefined) {
      const latest = s.latestStored.get(account, podId);
      coveredFrom = latest === undefined ? Number.MIN_SAFE_INTEGER : latest + 1;
      tail = emptyTail();
    } else {
      coveredFrom = stored[0];
      const columns = columnsOf(stored[1]);
      // Arrays: merge inserts into them.
      tail = emptyTail();
      if (columns) for (const name of COLUMNS) tail[name] = Array.from(columns[name]);
    }
    merge(
      tail,
      listed.filter((sample) => sample.observedAt >= coveredFrom),
    );
    if (keepFrom !== null && keepFrom > coveredFrom) coveredFrom = keepFrom;
    const kept = firstFrom(tail.observedAt, 0, tail.observedAt.length, coveredFrom);
    const latest = tail.observedAt[tail.observedAt.length - 1];
    if (latest === undefined || kept === tail.observedAt.length) s.drop.run(account, podId);
    else s.put.run(account, podId, coveredFrom, latest, pack(tail, kept));
  }
  // Pods gone from the list, or silent for the whole horizon: nothing of theirs is read.
  if (keepFrom !== null) s.dropStale.run(account, keepFrom);
}

/**
 * The poll's usual case, on the packed columns: samples newer than every one of the tail, none
 * older than where it covers from once cut. False (nothing written) otherwise.
 */
function appended(
  database: Database,
  account: string,
  podId: string,
  [storedFrom, blob]: [number, Buffer],
  listed: readonly TailInput[],
  keepFrom: number | null,
): boolean {
  const packed = unpackTail(blob);
  const n = packed.length / COLUMNS.length;
  const first = (listed[0] as TailInput).observedAt;
  const coveredFrom = keepFrom !== null && keepFrom > storedFrom ? keepFrom : storedFrom;
  if (first < coveredFrom || (n > 0 && first <= (packed[n - 1] as number))) return false;
  const kept = firstFrom(packed, 0, n, coveredFrom);
  const size = n - kept + listed.length;
  const out = new Float64Array(size * COLUMNS.length);
  for (let c = 0; c < COLUMNS.length; c++) out.set(packed.subarray(c * n + kept, (c + 1) * n), c * size);
  listed.forEach((sample, j) => {
    for (const [c, value] of valuesOf(sample).entries()) out[c * size + n - kept + j] = value;
  });
  const latest = (listed[listed.length - 1] as TailInput).observedAt;
  statements(database).update.run(coveredFrom, latest, Buffer.from(out.buffer), account, podId);
  return true;
}

/** Drops the tails' samples older than `cutoff`, with the samples retention deletes. */
export function dropSampleTailsBefore(database: Database, account: string, cutoff: number): void {
  const s = statements(database);
  s.dropStale.run(account, cutoff);
  for (const [podId, coveredFrom, blob] of s.older.all(account, cutoff)) {
    const tail = columnsOf(blob) ?? emptyTail();
    const kept = firstFrom(tail.observedAt, 0, tail.observedAt.length, cutoff);
    if (kept > 0) s.put.run(account, podId, coveredFrom, tail.observedAt.at(-1) as number, pack(tail, kept));
  }
}

/**
 * Of the Pods listed, the samples observed at or after `from` of each whose tail covers it, by Pod
 * (Pods with none since are left out), and the Pods whose tail does not (none, or covering less).
 */
export function readSampleTails(
  database: Database,
  account: string,
  from: number,
  podIds: readonly string[],
): { series: Map<string, TailView>; uncovered: string[] } {
  const series = new Map<string, TailView>();
  const covered = new Set<string>();
  for (const [podId, coveredFrom, blob] of statements(database).of.all(account, JSON.stringify(podIds))) {
    if (coveredFrom > from) continue;
    covered.add(podId);
    const columns = columnsOf(blob, from);
    if (columns !== undefined) series.set(podId, columns);
  }
  return { series, uncovered: podIds.filter((podId) => !covered.has(podId)) };
}
