/**
 * pod_sample_ends: per Pod with a stored sample, its latest sample (latest_at), its latest known
 * one (latest_known_at, null: none), and the first sample after that known one (unknown_since:
 * every sample when none is known; null when the latest sample is known). So:
 * - a write moves latest_at and latest_known_at up, and unknown_since down to the earliest
 *   written sample after the latest known one; only a known sample re-sent as unknown (which may
 *   uncover an earlier known one) or a known one landing before stored unknown ones reads
 *   pod_samples, for that Pod;
 * - deleting every sample older than a cutoff drops the Pods with no sample left, forgets a latest
 *   known sample older than it, and moves an older unknown_since to the Pod's first sample kept.
 * Every function here runs inside the transaction of the write it follows.
 */

import type { SamplesByPod } from './group-by.js';
import type { Database } from './open.js';
import { perDatabase } from './statements.js';

/** A sample as written: when, and whether its runtime was known. */
export interface EndsInput {
  readonly observedAt: number;
  readonly known: number;
}

/** A Pod whose latest sample is unknown, from some time on (see unknownPodsSinceSync). */
export interface UnknownSince {
  readonly latestAt: number;
  /** The latest known sample, when at or after the time asked (null otherwise). */
  readonly lastKnownAt: number | null;
  /** The first sample at or after the time asked that follows the latest known one. */
  readonly unknownSince: number;
}

type EndsRow = [latestAt: number, latestKnownAt: number | null, unknownSince: number | null];

const statements = perDatabase(({ sqlite }) => ({
  row: sqlite
    .prepare<[string, string], EndsRow>(
      'SELECT latest_at, latest_known_at, unknown_since FROM pod_sample_ends WHERE account = ? AND pod_id = ?',
    )
    .raw(),
  put: sqlite.prepare<[string, string, number, number | null, number | null]>(
    `INSERT OR REPLACE INTO pod_sample_ends (account, pod_id, latest_at, latest_known_at, unknown_since)
     VALUES (?, ?, ?, ?, ?)`,
  ),
  /** The Pod's latest known sample at or before a time: a walk down pod_samples' key from there. */
  knownAtOrBefore: sqlite
    .prepare<[string, number, string], number>(
      `SELECT observed_at FROM pod_samples WHERE account = ? AND observed_at <= ? AND pod_id = ? AND known = 1
       ORDER BY observed_at DESC LIMIT 1`,
    )
    .pluck(),
  /** The Pod's first sample at or after a time: a walk up pod_samples' key from there. */
  firstFrom: sqlite
    .prepare<[string, number, string], number>(
      `SELECT observed_at FROM pod_samples WHERE account = ? AND observed_at >= ? AND pod_id = ?
       ORDER BY observed_at LIMIT 1`,
    )
    .pluck(),
  dropGone: sqlite.prepare<[string, number]>('DELETE FROM pod_sample_ends WHERE account = ? AND latest_at < ?'),
  forgetKnown: sqlite.prepare<[string, number]>(
    'UPDATE pod_sample_ends SET latest_known_at = NULL WHERE account = ? AND latest_known_at < ?',
  ),
  olderUnknown: sqlite
    .prepare<[string, number], string>('SELECT pod_id FROM pod_sample_ends WHERE account = ? AND unknown_since < ?')
    .pluck(),
  setUnknownSince: sqlite.prepare<[number, string, string]>(
    'UPDATE pod_sample_ends SET unknown_since = ? WHERE account = ? AND pod_id = ?',
  ),
  unknownSince: sqlite
    .prepare<[string, number], [string, number, number | null, number]>(
      `SELECT pod_id, latest_at, latest_known_at, unknown_since FROM pod_sample_ends
       WHERE account = ? AND latest_at >= ? AND unknown_since IS NOT NULL ORDER BY pod_id`,
    )
    .raw(),
}));

/**
 * Follows samples just written (each key once, as stored) into each Pod's ends. Reads
 * pod_samples only for a Pod whose latest known sample was re-sent as unknown, or whose new
 * latest known sample is followed by samples stored before.
 */
export function followSampleEnds(database: Database, account: string, written: SamplesByPod<EndsInput>): void {
  const s = statements(database);
  for (const [podId, listed] of written) {
    const stored = s.row.get(account, podId);
    let latest = stored?.[0] ?? Number.NEGATIVE_INFINITY;
    let known = stored?.[1] ?? null;
    let lostKnown = false;
    for (const { observedAt, known: isKnown } of listed) {
      latest = Math.max(latest, observedAt);
      if (isKnown === 1) known = known === null ? observedAt : Math.max(known, observedAt);
      else if (observedAt === stored?.[1]) lostKnown = true;
    }
    // The latest known sample now says unknown: the one before it (or a later one written now).
    if (lostKnown && known === stored?.[1]) known = s.knownAtOrBefore.get(account, latest, podId) ?? null;
    let unknownSince: number | null = null;
    if (known !== latest) {
      const after = known ?? Number.NEGATIVE_INFINITY;
      let written = Number.POSITIVE_INFINITY;
      for (const { observedAt } of listed) if (observedAt > after) written = Math.min(written, observedAt);
      if (stored === undefined) unknownSince = written;
      // The same latest known sample: no stored sample after it but the run begun at unknown_since.
      else if (known === stored[1]) unknownSince = Math.min(stored[2] ?? Number.POSITIVE_INFINITY, written);
      // A new latest known sample after every stored one: what follows it was written now.
      else if (known !== null && known > stored[0]) unknownSince = written;
      // A new latest known sample before stored ones, or one lost: read where the run after it begins.
      else unknownSince = s.firstFrom.get(account, known === null ? Number.MIN_SAFE_INTEGER : known + 1, podId) ?? null;
    }
    s.put.run(account, podId, latest, known, unknownSince);
  }
}

/** Drops what the samples older than `cutoff` held, with the samples retention deletes. */
export function dropSampleEndsBefore(database: Database, account: string, cutoff: number): void {
  const s = statements(database);
  s.dropGone.run(account, cutoff);
  s.forgetKnown.run(account, cutoff);
  for (const podId of s.olderUnknown.all(account, cutoff)) {
    // The Pod has a sample at or after the cutoff (its latest), all unknown from unknown_since on.
    s.setUnknownSince.run(s.firstFrom.get(account, cutoff, podId) as number, account, podId);
  }
}

/**
 * The Pods whose latest sample is unknown and observed at or after `from`: when that sample was
 * taken, the latest known one if at or after `from`, and where the unknown run begins from `from`
 * on. One row per such Pod; pod_samples is read only for a run that began before `from`.
 */
export function unknownPodsSinceSync(
  database: Database,
  account: string,
  from: number,
): ReadonlyMap<string, UnknownSince> {
  const s = statements(database);
  const result = new Map<string, UnknownSince>();
  for (const [podId, latestAt, latestKnownAt, unknownSince] of s.unknownSince.all(account, from)) {
    result.set(podId, {
      latestAt,
      lastKnownAt: latestKnownAt !== null && latestKnownAt >= from ? latestKnownAt : null,
      unknownSince: unknownSince >= from ? unknownSince : (s.firstFrom.get(account, from, podId) as number),
    });
  }
  return result;
}
