import { HOUR_MS } from '../buckets.js';
import type { AlertRecord, FlapRecord } from '../db/alerts.js';

/**
 * A key that fired `count` times within `window` flaps (Nagios' flap detection, on fires): one
 * notice says so instead of a mail per episode, until a whole window passes without a change.
 */

/** Whether an episode is muted by a flap: firing while its key flaps, or resolved during a flap. */
export function mutedByFlap(
  alert: Pick<AlertRecord, 'key' | 'resolvedAt'>,
  flaps: readonly FlapRecord[],
  now: number,
): boolean {
  return flaps.some((flap) => {
    if (flap.key !== alert.key) return false;
    const at = alert.resolvedAt ?? now;
    return at >= flap.since && (flap.settledAt === null || at < flap.settledAt);
  });
}

export type FlapPattern = Record<'fires' | 'firingShare' | 'firingPerHourMs' | 'heldShare' | 'heldPerHourMs', number>;

/**
 * How the key spent the window: how many times it fired, the share of it firing, and the share
 * of it the condition held: from where its evidence starts (`details.idleSince` for an idle
 * Pod, else when it fired) to where it was first judged absent. From the episodes, so the
 * figure is what really happened. Shares are of the time since the first episode in the window.
 */
export function flapPattern(
  episodes: readonly Pick<AlertRecord, 'firedAt' | 'resolvedAt' | 'absentSince' | 'details'>[],
  now: number,
  windowMs: number,
): FlapPattern {
  const from = now - windowMs;
  let firingMs = 0;
  let heldMs = 0;
  let fires = 0;
  // Shares are of the time since the pattern began within the window, not of the whole window:
  // a key that flaps every hour since 2 hours holds the same share of each hour as one that has
  // for 6.
  let began = now;
  const overlap = (start: number, end: number) => Math.max(0, Math.min(end, now) - Math.max(start, from));
  for (const episode of episodes) {
    if (episode.firedAt === null) continue;
    const end = episode.resolvedAt ?? now;
    if (end < from) continue;
    if (episode.firedAt >= from) fires += 1;
    firingMs += overlap(episode.firedAt, end);
    const evidence = episode.details.idleSince;
    const start = typeof evidence === 'number' && evidence <= episode.firedAt ? evidence : episode.firedAt;
    heldMs += overlap(start, episode.absentSince ?? end);
    began = Math.min(began, Math.max(start, from));
  }
  const span = now - began;
  const share = (ms: number) => (span > 0 ? Math.min(1, ms / span) : 0);
  const firingShare = share(firingMs);
  const heldShare = share(heldMs);
  return {
    fires,
    firingShare,
    firingPerHourMs: Math.round(firingShare * HOUR_MS),
    heldShare,
    heldPerHourMs: Math.round(heldShare * HOUR_MS),
  };
}
