import type { Database } from './open.js';
import { perDatabase, dataVersion as readDataVersion } from './statements.js';

/**
 * One Pod's recent samples, column by column, oldest first, from index `start`. A null figure is
 * NaN, so each column stays an array of plain numbers (the idle rule walks tens of thousands of
 * them every minute). Columns only ever grow at the end: dropping samples swaps in new arrays,
 * so a reader holding the arrays of one tick keeps seeing exactly what it read.
 */
export interface SampleSeries {
  readonly podId: string;
  readonly start: number;
  readonly observedAt: readonly number[];
  /** 1 for a known sample (runtime reported), 0 for an unknown one. */
  readonly known: readonly number[];
  readonly uptimeS: readonly number[];
  readonly maxGpuUtil: readonly number[];
  readonly maxGpuMemoryUtil: readonly number[];
  /**
   * Changes whenever a sample of this Pod lands or is replaced (not when old samples are
   * trimmed): a rule may keep what it concluded from the same version at the same time.
   */
  readonly landed: number;
  /**
   * Changes only when samples already held were replaced or dropped from the end (or the series
   * is new): while it stays, every sample read before is still there, with later ones appended.
   */
  readonly rewritten: number;
}

interface Series {
  podId: string;
  start: number;
  observedAt: number[];
  known: number[];
  uptimeS: number[];
  maxGpuUtil: number[];
  maxGpuMemoryUtil: number[];
  landed: number;
  rewritten: number;
}

interface AccountWindow {
  account: string;
  series: Map<string, Series>;
  /** Every stored sample observed at or after this time is held (+Infinity: nothing loaded). */
  loadedFrom: number;
  /** The oldest sample written through this connection since the last refresh. */
  dirtyFrom: number;
  /** The longest span any reader asked for: samples older than that are dropped. */
  keepMs: number;
  /** One batch written through this connection since the last refresh, held to be appended without a read. */
  pending: PendingBatch | undefined;
  /**
   * The start of the last trim, after which every series held has a sample at or after it (and
   * only a re-read drops samples): a trim from no later a time has nothing to do.
   */
  trimmedFrom: number;
}

/** The rows of one insertPodSamples call as stored, and the oldest of them. */
interface PendingBatch {
  rows: Row[];
  from: number;
}

interface WindowState {
  accounts: Map<string, AccountWindow>;
  /** SQLite's data_version when last read: it moves when another connection commits. */
  dataVersion: number;
  landedCounter: number;
}

type Row = [
  podId: string,
  observedAt: number,
  known: number,
  uptimeS: number | null,
  gpu: number | null,
  memory: number | null,
];

const statements = perDatabase(({ sqlite }) => ({
  stored: sqlite
    .prepare<[string, number, string], number>(
      'SELECT 1 FROM pod_samples WHERE account = ? AND observed_at = ? AND pod_id = ?',
    )
    .pluck(),
  // Arrays, not objects: one range scan of the primary key (account, observed_at, pod_id).
  since: sqlite
    .prepare<[string, number], Row>(
      `SELECT pod_id, observed_at, known, uptime_s, max_gpu_util, max_gpu_memory_util
       FROM pod_samples WHERE account = ? AND observed_at >= ? ORDER BY observed_at, pod_id`,
    )
    .raw(),
}));

const states = perDatabase((): WindowState => ({ accounts: new Map(), dataVersion: Number.NaN, landedCounter: 0 }));

/** The columns of a row src/db/pods.ts writes to pod_samples that the window holds. */
export interface WrittenSample {
  podId: string;
  observedAt: number;
  known: number;
  uptimeS: number | null;
  maxGpuUtil: number | null;
  maxGpuMemoryUtil: number | null;
}

/**
 * Records that samples observed at or after `from` were written (or may have been: the
 * transaction may still roll back) through this connection, so the next read of the window
 * re-reads that range instead of trusting what it holds. Every insert into pod_samples goes
 * through src/db/pods.ts, which calls this before it writes; retention only deletes samples
 * days older than any window, and the window drops those itself.
 *
 * With the samples themselves (one batch, all newer than what the window holds), the next read
 * appends them without reading them back, once one key read shows the batch committed: the
 * batch is written in one savepoint, so its last row is there exactly when all of it is.
 */
export function markSamplesWritten(
  database: Database,
  account: string,
  from: number,
  samples?: readonly WrittenSample[],
): void {
  const window = states(database).accounts.get(account);
  if (!window) return;
  if (samples !== undefined && samples.length > 0 && window.pending === undefined && !isDirty(window)) {
    window.pending = { rows: samples.map(storedRow), from };
    return;
  }
  // A second write before the window was read again: re-read the whole range instead.
  if (window.pending) window.dirtyFrom = Math.min(window.dirtyFrom, window.pending.from);
  window.pending = undefined;
  window.dirtyFrom = Math.min(window.dirtyFrom, from);
}

function isDirty(window: AccountWindow): boolean {
  return window.dirtyFrom !== Number.POSITIVE_INFINITY;
}

function storedRow(sample: WrittenSample): Row {
  return [sample.podId, sample.observedAt, sample.known, sample.uptimeS, sample.maxGpuUtil, sample.maxGpuMemoryUtil];
}

/**
 * Appends the pending batch if it committed and every row is newer than what its Pod's series
 * holds (so no row replaced one already held, and none is listed twice); otherwise marks its
 * range to be read again (which also drops whatever of it was appended).
 */
function settlePending(database: Database, window: AccountWindow, state: WindowState): void {
  const batch = window.pending;
  if (!batch) return;
  window.pending = undefined;
  const last = batch.rows[batch.rows.length - 1] as Row;
  // Inside a transaction the batch may still roll back: read what it sees, as the range read does.
  // The last row proves the batch committed only if it was not stored before: newer than what
  // was held, which the strict append checks.
  const committed =
    !database.sqlite.inTransaction &&
    last[1] >= window.loadedFrom &&
    statements(database).stored.get(window.account, last[1], last[0]) === 1;
  if (!committed || !append(window, batch.rows, state, true)) window.dirtyFrom = Math.min(window.dirtyFrom, batch.from);
}

/** Forgets every held window of the database (the next read loads them again). */
export function forgetSampleWindows(database: Database): void {
  states(database).accounts.clear();
}

/**
 * Every Pod's samples observed at or after `from` (and any newer than `now`), per Pod, kept in
 * memory between calls. A call reads from the database only what landed since the previous
 * one: the samples written through this connection since then, or everything again when
 * another connection (the CLI) has committed meanwhile. So the cost of a tick follows what
 * changed, not the window, and never the stored history.
 */
export function sampleWindow(
  database: Database,
  account: string,
  from: number,
  now: number,
): ReadonlyMap<string, SampleSeries> {
  const state = states(database);
  const s = statements(database);
  const dataVersion = readDataVersion(database);
  if (dataVersion !== state.dataVersion) {
    state.dataVersion = dataVersion;
    state.accounts.clear();
  }
  let window = state.accounts.get(account);
  if (!window) {
    window = {
      account,
      series: new Map(),
      loadedFrom: Number.POSITIVE_INFINITY,
      dirtyFrom: Number.POSITIVE_INFINITY,
      keepMs: 0,
      pending: undefined,
      trimmedFrom: Number.NEGATIVE_INFINITY,
    };
    state.accounts.set(account, window);
  }
  window.keepMs = Math.max(window.keepMs, now - from);
  const keepFrom = Math.min(from, now - window.keepMs);
  if (from < window.loadedFrom) {
    window.pending = undefined;
    window.series.clear();
    append(window, s.since.all(account, keepFrom), state);
    window.loadedFrom = keepFrom;
    window.dirtyFrom = Number.POSITIVE_INFINITY;
    window.trimmedFrom = Number.NEGATIVE_INFINITY;
    for (const series of window.series.values()) series.landed = ++state.landedCounter;
  } else {
    settlePending(database, window, state);
  }
  if (isDirty(window)) {
    const rereadFrom = Math.max(window.dirtyFrom, window.loadedFrom);
    for (const series of window.series.values()) {
      if (truncateFrom(series, rereadFrom)) {
        series.landed = ++state.landedCounter;
        series.rewritten = series.landed;
      }
    }
    append(window, s.since.all(account, rereadFrom), state);
    window.dirtyFrom = Number.POSITIVE_INFINITY;
    window.trimmedFrom = Number.NEGATIVE_INFINITY;
  }
  trim(window, keepFrom);
  return window.series;
}

/**
 * Appends rows (oldest first) to their Pods' series, moving each grown one's `landed`. `strict`:
 * a batch taken from the writer, whose rows older than what the window holds are not held, and
 * which must only add samples newer than its Pod's newest (else false, half appended).
 */
function append(window: AccountWindow, rows: Row[], state: WindowState, strict = false): boolean {
  // One new version for every series this call grows: each one's `landed` changes, none twice.
  const landed = ++state.landedCounter;
  for (const [podId, observedAt, known, uptimeS, gpu, memory] of rows) {
    if (strict && observedAt < window.loadedFrom) continue;
    let series = window.series.get(podId);
    if (!series) {
      series = {
        podId,
        start: 0,
        observedAt: [],
        known: [],
        uptimeS: [],
        maxGpuUtil: [],
        maxGpuMemoryUtil: [],
        landed: 0,
        rewritten: ++state.landedCounter,
      };
      window.series.set(podId, series);
    }
    const held = series.observedAt.length;
    if (strict && held > 0 && (series.observedAt[held - 1] as number) >= observedAt) return false;
    series.observedAt.push(observedAt);
    series.known.push(known);
    series.uptimeS.push(uptimeS ?? Number.NaN);
    series.maxGpuUtil.push(gpu ?? Number.NaN);
    series.maxGpuMemoryUtil.push(memory ?? Number.NaN);
    series.landed = landed;
  }
  return true;
}

/** Drops the samples observed at or after `at` (into new arrays); says whether any was dropped. */
function truncateFrom(series: Series, at: number): boolean {
  const times = series.observedAt;
  let keep = times.length;
  while (keep > series.start && (times[keep - 1] as number) >= at) keep--;
  if (keep === times.length) return false;
  slice(series, series.start, keep);
  return true;
}

/** Drops samples older than every reader's window, and Pods left with none. */
function trim(window: AccountWindow, keepFrom: number): void {
  // The idle and waste rules ask for the same span each tick: the second call finds nothing to drop.
  if (keepFrom <= window.trimmedFrom) return;
  window.trimmedFrom = keepFrom;
  for (const [podId, series] of window.series) {
    const times = series.observedAt;
    let start = series.start;
    while (start < times.length && (times[start] as number) < keepFrom) start++;
    if (start === times.length) window.series.delete(podId);
    // Compacted now and then, not on every tick: the dropped head is garbage until then.
    else if (start > 64 && start > times.length / 2) slice(series, start, times.length);
    else series.start = start;
  }
  window.loadedFrom = Math.max(window.loadedFrom, keepFrom);
}

function slice(series: Series, from: number, to: number): void {
  series.observedAt = series.observedAt.slice(from, to);
  series.known = series.known.slice(from, to);
  series.uptimeS = series.uptimeS.slice(from, to);
  series.maxGpuUtil = series.maxGpuUtil.slice(from, to);
  series.maxGpuMemoryUtil = series.maxGpuMemoryUtil.slice(from, to);
  series.start = 0;
}
