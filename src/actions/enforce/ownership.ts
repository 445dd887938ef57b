import type { Config } from '../../config/schema.js';
import type { PodRecord } from '../../db/pods.js';
import type { PodOwnership } from './select.js';

/** Who a Pod belongs to, for a control's `match.team` / `match.owner`. */
export function ownershipOf(_config: Config, _pod: PodRecord): PodOwnership {
  // Until the owners resolver lands, nobody is known: a team or owner list selects no Pod.
  return { owner: null, team: null };
}
