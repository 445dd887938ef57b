import { type AlertRecord, type FlapRecord, firedEpisodesOf, openFlap, openFlaps, updateFlap } from '../db/alerts.js';
import type { Database } from '../db/open.js';
import type { AlertSettings } from './settings.js';

/**
 * Flapping, in the manner of Nagios' flap detection but on fires: a key that fired `count` times
 * within `window` flaps. While it flaps its episodes are not mailed one by one (one notice says
 * it flaps and what the pattern costs; the digest carries it); it settles once it has neither
 * fired nor resolved for a whole window. Called inside the transaction that records the change.
 */
export type FlapSettings = AlertSettings['flapping'];

/** The key's episode just fired: extend its flap, or open one if this fire makes `count`. */
export function noteFire(
  database: Database,
  alert: Pick<AlertRecord, 'key' | 'rule' | 'account'>,
  now: number,
  settings: FlapSettings,
): boolean {
  const open = openFlaps(database).get(alert.key);
  if (open) {
    updateFlap(database, open.id, { lastChangeAt: now });
    return false;
  }
  const fires = firedEpisodesOf(database, alert.key, now - settings.windowMs).length;
  if (fires < settings.count) return false;
  openFlap(database, { key: alert.key, rule: alert.rule, account: alert.account, since: now, lastChangeAt: now });
  return true;
}

export function noteResolve(database: Database, key: string, now: number): void {
  const open = openFlaps(database).get(key);
  if (open) updateFlap(database, open.id, { lastChangeAt: now });
}

/** Flaps without a fire or a resolve for a whole window have settled. */
export function settleFlaps(database: Database, now: number, settings: FlapSettings): FlapRecord[] {
  const settled: FlapRecord[] = [];
  for (const flap of openFlaps(database).values()) {
    if (now - flap.lastChangeAt < settings.windowMs) continue;
    updateFlap(database, flap.id, { settledAt: now });
    settled.push({ ...flap, settledAt: now });
  }
  return settled;
}

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

/**
 * How the key spent the window: the share of it firing, the average firing time per hour and
 * how many times it fired. From its episodes, so the figure is what really happened.
 */
export function flapPattern(
  episodes: readonly Pick<AlertRecord, 'firedAt' | 'resolvedAt'>[],
  now: number,
  windowMs: number,
): { fires: number; firingShare: number; firingPerHourMs: number } {
  const from = now - windowMs;
  let firingMs = 0;
  let fires = 0;
  for (const episode of episodes) {
    if (episode.firedAt === null) continue;
    const end = episode.resolvedAt ?? now;
    if (end < from) continue;
    if (episode.firedAt >= from) fires += 1;
    firingMs += Math.max(0, Math.min(end, now) - Math.max(episode.firedAt, from));
  }
  const firingShare = windowMs > 0 ? Math.min(1, firingMs / windowMs) : 0;
  return { fires, firingShare, firingPerHourMs: Math.round(firingShare * 3_600_000) };
}
