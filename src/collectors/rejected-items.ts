import { ApiError } from '../api/index.js';
import type { RejectedItem } from '../api/parse.js';
import type { UnreadableItems } from '../db/latest.js';
import type { Logger } from '../log.js';
import type { CollectResult } from './collector.js';

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

export type ListWords = Parameters<typeof rejectedDetail>[1];

/** An ok run's result: the rows it wrote, and the rejected items of each of its lists named, if any. */
export function collectResult(
  rows: number,
  ...lists: ReadonlyArray<readonly [rejected: readonly RejectedItem[], words: ListWords]>
): CollectResult {
  const details = lists.flatMap(([rejected, words]) => rejectedDetail(rejected, words).detail ?? []);
  return { rows, ...(details.length > 0 ? { detail: details.join('; ') } : {}) };
}

const BILLING_LIST = {
  key: 'records',
  one: 'billing record',
  many: 'billing records',
  kept: 'its bucket kept as stored and read again next run',
};

/**
 * The billing records the schema rejected, each logged, as the error that fails the run: its
 * other records are stored, but a run that left a bucket short must not count as read through,
 * or its window would not be read again.
 * `GET /billing/pods (…): 1 billing record rejected by the schema, its bucket kept as stored and
 * read again next run: records[3] (pod-x): response body records[3].totalAmount: …`.
 */
export function rejectedError(log: Logger, pages: ReadonlyArray<{ op: string; rejected: readonly RejectedItem[] }>) {
  for (const { op, rejected } of pages) {
    for (const item of rejected) {
      log.warn(
        { route: op, index: item.index, resourceId: item.id, reason: item.reason },
        'billing record rejected by the schema; its bucket kept as stored, read again next run',
      );
    }
  }
  const [first, ...others] = pages.map(({ op, rejected }) => ({
    op,
    detail: rejectedDetail(rejected, BILLING_LIST).detail,
  }));
  const message = [first?.detail, ...others.map(({ op, detail }) => `${op}: ${detail}`)].join('; ');
  return new ApiError({ kind: 'contract', op: first?.op ?? 'GET /billing', message });
}
