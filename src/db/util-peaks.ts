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
import type { SamplesByPod } from './group-by.js';
import type { Database } from './open.js';
import { perDatabase } from './statements.js';

/** A sample as written, with its busiest GPU's figure (null: unknown, or no GPU figure). */
export interface PeakInput {
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
 * Writes samples (`write`) and follows them. Per Pod: when no sample lowers a stored figure (a
 * new sample newer than the Pod's latest known one, or a re-sent one as busy or busier), each
 * sample's rise is applied in time order: the kept rows before it that it reaches go, and it is
 * kept when above the first kept row after it. A lowered figure (or one gone unknown) may uncover
 * earlier samples: the Pod is rebuilt from pod_samples from the latest kept row before its
 * earliest sample of the batch on.
 */
export function writeFollowingPeaks(
  database: Database,
  account: string,
  written: SamplesByPod<PeakInput>,
  write: () => void,
): void {
  const s = statements(database);
  // Before the write: each Pod's latest kept row, and whether a sample at or before it lowers what was stored there.
  const before = new Map<string, { latest: number | null; lowered: boolean }>();
  for (const [podId, listed] of written) {
    const latest = s.latestKept.get(account, podId) ?? null;
    const lowered =
      latest !== null &&
      listed.some((sample) => {
        if (sample.observedAt > latest) return false;
        const stored = s.storedFigure.get(account, sample.observedAt, podId);
        const was = stored === undefined ? null : figureOf(stored[0], stored[1]);
        const after = figureOf(sample.known, sample.maxGpuUtil);
        return was !== null && (after === null || after < was);
      });
    before.set(podId, { latest, lowered });
  }
  write();
  for (const [podId, listed] of written) {
    const { latest, lowered } = before.get(podId) as { latest: number | null; lowered: boolean };
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

/** Drops the kept rows older than `cutoff`, with the samples retention deletes. */
export function dropPeaksBefore(database: Database, account: string, cutoff: number): number {
  return statements(database).retain.run(account, cutoff).changes;
}

/** The Pods with a known busiest-GPU figure above `above` from `from` on, none newer than `to`, in no particular order. */
export function busyPodsSync(database: Database, account: string, window: { from: number; above: number; to: number }) {
  return statements(database).busy.all(account, window.from, window.above, window.to);
}
