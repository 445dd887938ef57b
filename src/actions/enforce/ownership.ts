import { ownerOf } from '../../config/owner-of.js';
import type { Config } from '../../config/schema.js';
import type { PodRecord } from '../../db/pods.js';
import type { PodOwnership } from './select.js';

/** Who a Pod belongs to, for a control's `match.team` / `match.owner` (the `owners` section's answer). */
export function ownershipOf(config: Config, pod: PodRecord): PodOwnership {
  return ownerOf(config.owners, { name: pod.name, env: pod.env });
}
