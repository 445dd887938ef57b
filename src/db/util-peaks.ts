/**
 * pod_util_peaks: per Pod, the known samples whose busiest-GPU figure is above that of every
 * later known sample. Whether a sample is kept depends only on later samples, so:
 * - a sample newer than the Pod's latest known one is appended: the kept rows whose figure it
 *   reaches go, it is kept (an unknown one, or one without a GPU figure, changes nothing);
 * - a sample at or before it (out of order, or re-sent) that raises no figure acts the same way,
 *   and is kept only when above the first kept row after it;
 * - one that lowers a figure changes only what is kept from the latest kept row before it on,
 *   which is rebuilt from pod_samples: rows before that one stay hidden behind it, and stay kept
 *   if above the rebuilt rows;
 * - deleting every sample older than a cutoff deletes exactly the kept rows older than it.
 * Every function here runs inside the transaction of the write it follows.
 */
import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import { perDatabase } from './statements.js';

/** Which Pods count as busy: a known busiest-GPU figure above `above` from `from` on, none newer than `to`. */
export interface BusyWindow {
  readonly from: number;
  readonly above: number;
  readonly to: number;
}

/** A sample as written, with its busiest GPU's figure (null: unknown, or no GPU figure). */
export interface PeakInput {
  readonly podId: string;
  readonly observedAt: number;
  readonly known: number;
  readonly maxGpuUtil: number | null;
}

const statements = perDatabase(({ sqlite }) => ({
  latestKept: sqlite
    .prepare<[string, string], number | null>(
      'SELECT max(observed_at) FROM pod_util_peaks WHERE account = ? AND pod_id = ?',
    )
    .pluck(),
  keptBefore: sqlite
    .prepare<[string, string, number], number | null>(
      'SELECT max(observed_at) FROM pod_util_peaks WHERE account = ? AND pod_id = ? AND observed_at < ?',
    )
    .pluck(),
  /** Kept rows at or before `to` whose figure is at most `figure`: a later sample reaches them. */
  reached: sqlite.prepare<[string, string, number, number]>(
    'DELETE FROM pod_util_peaks WHERE account = ? AND pod_id = ? AND observed_at <= ? AND max_gpu_util <= ?',
  ),
  dropAfter: sqlite.prepare<[string, string, number]>(
    'DELETE FROM pod_util_peaks WHERE account = ? AND pod_id = ? AND observed_at > ?',
  ),
  /** The figure of the Pod's first kept row after a time. */
  keptAfter: sqlite
    .prepare<[string, string, number], number>(
      `SELECT max_gpu_util FROM pod_util_peaks WHERE account = ? AND pod_id = ? AND observed_at > ?
       ORDER BY observed_at LIMIT 1`,
    )
    .pluck(),
  storedFigure: sqlite
    .prepare<[string, number, string], [number, number | null]>(
      'SELECT known, max_gpu_util FROM pod_samples WHERE account = ? AND observed_at = ? AND pod_id = ?',
    )
    .raw(),
  keep: sqlite.prepare<[string, string, number, number]>(
    'INSERT INTO pod_util_peaks (account, pod_id, observed_at, max_gpu_util) VALUES (?, ?, ?, ?)',
  ),
  /** One Pod's known figures after a time, newest first: a range of pod_samples' key (account, observed_at, ...). */
  knownAfter: sqlite
    .prepare<[string, number, string], [number, number]>(
      `SELECT observed_at, max_gpu_util FROM pod_samples
       WHERE account = ? AND observed_at > ? AND pod_id = ? AND known = 1 AND max_gpu_util IS NOT NULL
       ORDER BY observed_at DESC`,
    )
    .raw(),
  clear: sqlite.prepare<[string]>('DELETE FROM pod_util_peaks WHERE account = ?'),
  /** Every Pod's kept rows at once (what migration 0025 ran): window sums over pod_samples. */
  refill: sqlite.prepare<[string]>(
    `INSERT INTO pod_util_peaks (account, pod_id, observed_at, max_gpu_util)
     SELECT account, pod_id, observed_at, max_gpu_util FROM (
       SELECT account, pod_id, observed_at, max_gpu_util,
         max(max_gpu_util) OVER (PARTITION BY pod_id ORDER BY observed_at
           ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS later
       FROM pod_samples WHERE account = ? AND known = 1 AND max_gpu_util IS NOT NULL
     ) WHERE later IS NULL OR max_gpu_util > later
     ORDER BY pod_id, observed_at`,
  ),
  retain: sqlite.prepare<[string, number]>('DELETE FROM pod_util_peaks WHERE account = ? AND observed_at < ?'),
  // The kept rows fall towards now: the largest figure since `from` is the busiest known one, and
  // the latest kept row is the latest known sample.
  busy: sqlite
    .prepare<[string, number, number, number], string>(
      `SELECT pod_id FROM pod_util_peaks WHERE account = ? AND observed_at >= ?
       GROUP BY pod_id HAVING max(max_gpu_util) > ? AND max(observed_at) <= ?`,
    )
    .pluck(),
}));

/** A known sample's figure, else null (unknown, no GPU figure, or none stored). */
const figureOf = (known: number, util: number | null): number | null => (known === 1 ? util : null);

/**
 * Writes samples (`write`, each key once) and follows them. Per Pod: when no sample lowers a
 * stored figure (a new sample newer than the Pod's latest known one, or a re-sent one as busy or
 * busier), each sample's rise is applied in time order: the kept rows before it that it reaches
 * go, and it is kept when above the first kept row after it. A lowered figure (or one gone
 * unknown) may uncover earlier samples: the Pod is rebuilt from pod_samples from the latest
 * kept row before its earliest sample of the batch on.
 */
export function writeFollowingPeaks(
  database: Database,
  account: string,
  samples: readonly PeakInput[],
  write: () => void,
): void {
  const s = statements(database);
  const byPod = new Map<string, { latest: number | null; lowered: boolean; listed: PeakInput[] }>();
  for (const sample of samples) {
    let pod = byPod.get(sample.podId);
    if (pod === undefined) {
      pod = { latest: s.latestKept.get(account, sample.podId) ?? null, lowered: false, listed: [] };
      byPod.set(sample.podId, pod);
    }
    pod.listed.push(sample);
    if (pod.latest === null || sample.observedAt > pod.latest || pod.lowered) continue;
    // At or before the Pod's latest known sample: what was stored there, before this write.
    const stored = s.storedFigure.get(account, sample.observedAt, sample.podId);
    const before = stored === undefined ? null : figureOf(stored[0], stored[1]);
    const after = figureOf(sample.known, sample.maxGpuUtil);
    if (before !== null && (after === null || after < before)) pod.lowered = true;
  }
  write();
  for (const [podId, { latest, lowered, listed }] of byPod) {
    listed.sort((a, b) => a.observedAt - b.observedAt);
    if (lowered) {
      const earliest = (listed[0] as PeakInput).observedAt;
      rebuildAfter(database, account, podId, s.keptBefore.get(account, podId, earliest) ?? null);
      continue;
    }
    for (const { observedAt, known, maxGpuUtil } of listed) {
      const figure = figureOf(known, maxGpuUtil);
      if (figure === null) continue;
      // Newer than every kept row of the Pod before this write: nothing kept after it.
      const next = latest === null || observedAt > latest ? undefined : s.keptAfter.get(account, podId, observedAt);
      s.reached.run(account, podId, observedAt, figure);
      if (next === undefined || figure > next) s.keep.run(account, podId, observedAt, figure);
    }
  }
}

/** Recomputes a Pod's kept rows after `after` (null: all of them) from pod_samples. */
function rebuildAfter(database: Database, account: string, podId: string, after: number | null): void {
  const s = statements(database);
  const from = after ?? Number.MIN_SAFE_INTEGER;
  s.dropAfter.run(account, podId, from);
  let later = Number.NEGATIVE_INFINITY;
  for (const [observedAt, util] of s.knownAfter.all(account, from, podId)) {
    if (util > later) s.keep.run(account, podId, observedAt, util);
    later = Math.max(later, util);
  }
  if (after !== null && later > Number.NEGATIVE_INFINITY) s.reached.run(account, podId, after, later);
}

/** Recomputes every kept row of an account from pod_samples, for samples stored by other means (a bench's bulk fill). */
export async function refillPeaks(database: Database, account: string): Promise<void> {
  const s = statements(database);
  database.transaction(() => {
    s.clear.run(account);
    s.refill.run(account);
  });
}

/** Drops the kept rows older than `cutoff`, with the samples retention deletes. */
export function dropPeaksBefore(database: Database, account: string, cutoff: number): number {
  return statements(database).retain.run(account, cutoff).changes;
}

/** The Pods busy in `window`, in no particular order. */
export function busyPodsSync(database: Database, account: string, window: BusyWindow): string[] {
  return statements(database).busy.all(account, window.from, window.above, window.to);
}

export const busyPods = outsideTransaction(busyPodsSync);
