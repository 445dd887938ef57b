import { ownerOf } from '../config/owner-of.js';
import type { OwnersConfig } from '../config/sections/owners.js';
import { type BilledBucket, type DecidedStop, type NamedResource, resourceKey } from '../db/report-reads.js';
import { type SavingRecord, savedWithin } from '../db/savings.js';
import type { BillingKind } from '../db/schema.js';
import { currentPeriod } from '../rules/period.js';

export const REPORT_GROUPINGS = ['pod', 'team', 'kind', 'day'] as const;
export type ReportGrouping = (typeof REPORT_GROUPINGS)[number];

/** What a report row is of: the columns that name its group, in order. */
export const GROUP_COLUMNS: Readonly<Record<ReportGrouping, readonly string[]>> = {
  pod: ['account', 'kind', 'id', 'name'],
  team: ['team'],
  kind: ['kind'],
  day: ['day'],
};

/** The figures of one group: USD billed, USD the stops saved, stops sent and stops decided in dry run. */
export interface ReportFigures {
  spend: number;
  saved: number;
  stops: number;
  dryRunStops: number;
}

export interface ReportRow extends ReportFigures {
  /** The group's columns (GROUP_COLUMNS of the grouping), as text. */
  group: Record<string, string>;
}

export interface Report {
  from: number;
  to: number;
  by: ReportGrouping;
  timeZone: string;
  rows: ReportRow[];
  total: ReportFigures;
}

export interface ReportData {
  from: number;
  to: number;
  /** Savings still open run to min(to, now). */
  now: number;
  by: ReportGrouping;
  timeZone: string;
  owners: OwnersConfig;
  buckets: readonly BilledBucket[];
  savings: readonly SavingRecord[];
  stops: readonly DecidedStop[];
  names: ReadonlyMap<string, NamedResource>;
}

/** The label of a resource without a team. */
export const NO_TEAM = '(no team)';

const zero = (): ReportFigures => ({ spend: 0, saved: 0, stops: 0, dryRunStops: 0 });

/**
 * The report's rows: billing buckets by the day their bucket starts, savings split at day
 * boundaries (in the report's zone), stops by when they were decided. Stops and savings are of
 * Pods (billing kind `pods`).
 */
export function buildReport(data: ReportData): Report {
  const groups = new Map<string, { group: Record<string, string>; figures: ReportFigures }>();
  const add = (group: Record<string, string>, change: Partial<ReportFigures>) => {
    const key = JSON.stringify(group);
    let entry = groups.get(key);
    if (entry === undefined) {
      entry = { group, figures: zero() };
      groups.set(key, entry);
    }
    for (const [field, value] of Object.entries(change) as Array<[keyof ReportFigures, number]>)
      entry.figures[field] += value;
  };
  const groupOf = (
    account: string,
    kind: BillingKind,
    id: string,
    at: number,
    fallbackName = '',
  ): Record<string, string> => {
    const named = data.names.get(resourceKey(account, kind, id));
    switch (data.by) {
      case 'pod':
        return { account, kind, id, name: named?.name ?? fallbackName };
      case 'team':
        return {
          team: ownerOf(data.owners, { name: named?.name ?? (fallbackName || null), env: named?.env }).team ?? NO_TEAM,
        };
      case 'kind':
        return { kind };
      case 'day':
        return { day: dayOf(at, data.timeZone).label };
    }
  };
  for (const bucket of data.buckets) {
    add(groupOf(bucket.account, bucket.kind, bucket.resourceId, bucket.startTime), { spend: bucket.totalAmount });
  }
  const savedUntil = Math.min(data.to, data.now);
  for (const saving of data.savings) {
    for (const window of splitByDay(Math.max(saving.stoppedAt, data.from), savedUntil, data)) {
      const saved = savedWithin(saving, window);
      if (saved > 0) add(groupOf(saving.account, 'pods', saving.podId, window.from, saving.podName), { saved });
    }
  }
  for (const stop of data.stops) {
    const counted = stop.dryRun ? { dryRunStops: 1 } : { stops: 1 };
    add(groupOf(stop.account, 'pods', stop.podId, stop.decidedAt, stop.podName), counted);
  }
  const rows = [...groups.values()].map(({ group, figures }) => ({ group, ...figures }));
  rows.sort(data.by === 'day' ? byGroupText : (a, b) => b.spend - a.spend || b.saved - a.saved || byGroupText(a, b));
  const total = zero();
  for (const row of rows)
    for (const field of Object.keys(total) as Array<keyof ReportFigures>) total[field] += row[field];
  return { from: data.from, to: data.to, by: data.by, timeZone: data.timeZone, rows, total };
}

function byGroupText(a: ReportRow, b: ReportRow): number {
  const text = (row: ReportRow) => Object.values(row.group).join('\u0000');
  return text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0;
}

/** The local day (in `timeZone`) holding `at`: its bounds and its date. */
function dayOf(at: number, timeZone: string) {
  return currentPeriod({ period: 'day', timeZone, weekStartsOn: 'monday', monthResetDay: 1 }, at);
}

/** [from, to) cut at the report's day boundaries when it groups by day; whole otherwise. */
function splitByDay(from: number, to: number, data: Pick<ReportData, 'by' | 'timeZone'>) {
  if (to <= from) return [];
  if (data.by !== 'day') return [{ from, to }];
  const windows: Array<{ from: number; to: number }> = [];
  for (let start = from; start < to; ) {
    const end = Math.min(dayOf(start, data.timeZone).endMs, to);
    windows.push({ from: start, to: end });
    start = end;
  }
  return windows;
}
