import type { RejectedItem } from '../api/parse.js';
import type { UnreadableItems } from '../db/latest.js';

/** The ids of a list's rejected items: still listed, so never marked gone (latest.ts). */
export function unreadableOf(rejected: readonly RejectedItem[]): UnreadableItems {
  const ids = rejected.flatMap((item) => (item.id === null ? [] : [item.id]));
  return { ids: [...new Set(ids)], anonymous: rejected.some((item) => item.id === null) };
}

/**
 * What an ok run set aside, naming each rejected item:
 * `2 Pods rejected by the schema, treated as unknown: pods[3] (pod-x): response body pods[3].cost: …`.
 */
export function rejectedDetail(
  rejected: readonly RejectedItem[],
  list: { key: string; one: string; many: string; kept: string },
): { detail?: string } {
  if (rejected.length === 0) return {};
  const items = rejected.map(
    (item) => `${list.key}[${item.index}]${item.id === null ? '' : ` (${item.id})`}: ${item.reason}`,
  );
  const noun = rejected.length === 1 ? list.one : list.many;
  return { detail: `${rejected.length} ${noun} rejected by the schema, ${list.kept}: ${items.join('; ')}` };
}
