import type { EnforceMatch } from '../../config/sections/enforce.js';
import type { PodRecord } from '../../db/pods.js';
import { IGNORE_ENV, ignoredByEnv, selects } from '../../rules/idle-match.js';

/** Who a Pod belongs to, as the `owners` section resolves it (null: unknown). */
export interface PodOwnership {
  owner: string | null;
  team: string | null;
}

/**
 * Whether a control's `match` selects the Pod: any list naming it (id, name pattern, team,
 * owner); every list empty selects every Pod. An unknown team or owner never matches a list.
 */
export function matchesPod(match: EnforceMatch, pod: PodRecord, ownership: PodOwnership): boolean {
  const { podIds, names, team, owner } = match;
  if (podIds.length === 0 && names.length === 0 && team.length === 0 && owner.length === 0) return true;
  if (selects(match, pod) !== undefined) return true;
  if (ownership.team !== null && team.includes(ownership.team)) return true;
  return ownership.owner !== null && owner.includes(ownership.owner);
}

/** Why the control must not stop the Pod (PODWARDEN_IGNORE, its `exclude`), or null. */
export function exclusionFor(
  control: { name: string; exclude: { podIds: string[]; names: string[] } },
  what: string,
  pod: PodRecord,
): string | null {
  if (ignoredByEnv(pod)) return `env ${IGNORE_ENV}=true`;
  const by = selects(control.exclude, pod);
  if (by === 'id') return `pod id listed in ${what} "${control.name}" exclude.podIds`;
  if (by === 'name') return `pod name matches ${what} "${control.name}" exclude.names`;
  return null;
}
