import { bucketCeil, bucketFloor, DAY_MS } from '../buckets.js';
import { monthAfter, monthFloor } from './billing-months.js';
import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import type { BillingKind, BucketSize } from './schema.js';
import { perDatabase } from './statements.js';

/** One billed resource's spend in a budget period and in a burn-rate window. */
export interface ResourceSpend {
  /** podId, serverlessId, networkVolumeId, clusterId; '' for `/billing` and `/billing/endpoints`. */
  resourceId: string;
  /** Buckets starting in [periodStart, periodEnd). */
  periodAmount: number;
  /** Buckets starting at or after windowStart. */
  windowAmount: number;
  /**
   * How far its billing is known: the end of its latest bucket, or when that bucket was read if
   * it was still running then (a running bucket holds the spend up to its reading).
   */
  coveredThrough: number;
}

export interface SpendQuery {
  account: string;
  kind: BillingKind;
  bucketSize: BucketSize;
  periodStart: number;
  periodEnd: number;
  windowStart: number;
}

interface DayQuery extends SpendQuery {
  /** Buckets read, or whole days or months read, starting in [from, to). */
  from: number;
  to: number;
  /** The first whole day of the period, of the window, and the day the period's end cuts. */
  periodDays: number;
  windowDays: number;
  daysEnd: number;
  /**
   * Where the period's and the window's month read from billing_months starts, and where it ends
   * (daysEnd): a figure reads [its start, monthsEnd) by month, not by day (empty for most).
   */
  periodMonths: number;
  windowMonths: number;
  monthsEnd: number;
}

/** A day inside a figure's whole months is counted by its month, not by itself. */
const IN_PERIOD_MONTHS = 'day_start >= @periodMonths AND day_start < @monthsEnd';
const IN_WINDOW_MONTHS = 'day_start >= @windowMonths AND day_start < @monthsEnd';

/** A read's row: resource id, period amount, window amount, covered through (or, for `one`, the amount once). */
type SpendRow = [string, number, number, number];
type OneRow = [string, number, number];

// The budget tick reads thousands of these rows: positional binds and arrays (`.raw()`), SQL text
// because drizzle's row mapping costs as much as the read itself here.
const statements = perDatabase(({ sqlite }) => ({
  // One whole UTC month (billing-months.ts) or day: a row per resource, no GROUP BY (and its
  // sort); which figures count it is the same for every row, so the caller decides it once.
  month: sqlite
    .prepare<[string, string, string, number], OneRow>(
      `SELECT resource_id, total_amount, covered_through FROM billing_months
       WHERE account = ? AND kind = ? AND bucket_size = ? AND month_start = ? ORDER BY resource_id`,
    )
    .raw(),
  day: sqlite
    .prepare<[string, string, string, number], OneRow>(
      `SELECT resource_id, total_amount, covered_through FROM billing_days
       WHERE account = ? AND kind = ? AND bucket_size = ? AND day_start = ? ORDER BY resource_id`,
    )
    .raw(),
  // Where the rollup's days end: no whole-day range reads past it (a period's future days).
  lastDay: sqlite
    .prepare<[string, string, string], number | null>(
      'SELECT max(day_start) FROM billing_days WHERE account = ? AND kind = ? AND bucket_size = ?',
    )
    .pluck(),
  // Whole UTC days from the rollup; a day counts for a figure when it lies wholly after its start
  // and outside the month read for it.
  days: sqlite
    .prepare<DayQuery, SpendRow>(
      `SELECT resource_id,
         total(CASE WHEN day_start >= @periodDays AND NOT (${IN_PERIOD_MONTHS}) THEN total_amount END),
         total(CASE WHEN day_start >= @windowDays AND NOT (${IN_WINDOW_MONTHS}) THEN total_amount END),
         max(covered_through)
       FROM billing_days
       WHERE account = @account AND kind = @kind AND bucket_size = @bucketSize
         AND day_start >= @from AND day_start < @to
       GROUP BY resource_id ORDER BY resource_id`,
    )
    .raw(),
  // Buckets of the days a boundary cuts, each counted for a figure the whole days do not cover.
  buckets: sqlite
    .prepare<DayQuery, SpendRow>(
      `SELECT resource_id,
         total(CASE WHEN start_time >= @periodStart AND (start_time < @periodDays OR start_time >= @daysEnd)
           THEN total_amount END),
         total(CASE WHEN start_time >= @windowStart AND (start_time < @windowDays OR start_time >= @daysEnd)
           THEN total_amount END),
         max(min(end_time, fetched_at))
       FROM billing_records
       WHERE account = @account AND kind = @kind AND bucket_size = @bucketSize
         AND start_time >= @from AND start_time < @to
       GROUP BY resource_id ORDER BY resource_id`,
    )
    .raw(),
}));

/** Sorted, disjoint [from, to) ranges covering the ones given (empty ones dropped). */
function union(ranges: Array<[number, number]>): Array<[number, number]> {
  const merged: Array<[number, number]> = [];
  for (const [from, to] of ranges.filter(([f, t]) => f < t).sort((x, y) => x[0] - y[0])) {
    const last = merged.at(-1);
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged;
}

/**
 * The bucket and single-day reads of one evaluation's spend queries, by what decides their rows
 * (bucketReadKey; a day's account, kind, size and start), so that alike queries read them once.
 * Made per evaluation and dropped with it; the rows are never changed.
 */
export type BucketReads = Map<string, readonly SpendRow[] | readonly OneRow[]>;

/**
 * What decides a bucket read's rows: its account, kind, size and range, and for each figure the
 * part of the range it counts (its cut, [start, first whole day) and [daysEnd, ...), clipped).
 */
function bucketReadKey(range: DayQuery): string {
  const { from, to, daysEnd } = range;
  const counted = (start: number, days: number) => {
    const head = [Math.max(from, start), Math.min(to, days)];
    const tail = [Math.max(from, start, daysEnd), to];
    return [head, tail].filter(([f, t]) => (f as number) < (t as number)).join(';');
  };
  return [
    range.account,
    range.kind,
    range.bucketSize,
    from,
    to,
    counted(range.periodStart, range.periodDays),
    counted(range.windowStart, range.windowDays),
  ].join('\u0000');
}

/** The whole days of a figure starting at `days` (its first whole day) not read by month ([months, monthsEnd)). */
function daysOutsideMonths(days: number, months: number, monthsEnd: number, daysEnd: number): Array<[number, number]> {
  if (months >= monthsEnd) return [[days, daysEnd]];
  return [
    [days, months],
    [monthsEnd, daysEnd],
  ];
}

/**
 * Spend per resource of one billing kind, ordered by resource id: the same figures as a sum over
 * every bucket starting in [min(periodStart, windowStart), periodEnd), with whole UTC days read
 * from the daily rollup (or the monthly one when they make one UTC month) and only the part of a
 * day a boundary cuts read bucket by bucket.
 */
export function spendByResourceSync(
  database: Database,
  query: SpendQuery,
  reads?: BucketReads,
): readonly ResourceSpend[] {
  const s = statements(database);
  const from = Math.min(query.periodStart, query.windowStart);
  const to = query.periodEnd;
  const periodDays = bucketCeil(query.periodStart, 'day');
  const windowDays = bucketCeil(query.windowStart, 'day');
  const daysFrom = bucketCeil(from, 'day');
  const daysEnd = Math.max(daysFrom, to - (to % DAY_MS));
  // A figure whose whole days are exactly one UTC month reads that month's row: the total of the
  // same days in the same order, so the figure is the one its days give. Any other reads its days.
  const monthsEnd = daysEnd;
  const oneMonth = (days: number) => days === monthFloor(days) && monthAfter(days) === daysEnd;
  const periodMonths = oneMonth(periodDays) ? periodDays : monthsEnd;
  const windowMonths = oneMonth(windowDays) ? windowDays : monthsEnd;
  const bounds = { ...query, periodDays, windowDays, daysEnd, periodMonths, windowMonths, monthsEnd };
  const { account, kind, bucketSize } = query;
  /** Each read's rows, as [resource, period amount, window amount, covered], in the order they add up. */
  const lists: Array<readonly SpendRow[]> = [];
  /** A month's or a day's rows, counted for each figure that reads that month or day. */
  const addOne = (rows: readonly OneRow[], forPeriod: boolean, forWindow: boolean) => {
    lists.push(
      rows.map(([resourceId, amount, covered]) => [
        resourceId,
        forPeriod ? amount : 0,
        forWindow ? amount : 0,
        covered,
      ]),
    );
  };
  // Both figures that read a month read the same one, [monthsFrom, monthsEnd).
  const monthsFrom = Math.min(periodMonths, windowMonths);
  if (monthsFrom < monthsEnd) {
    const rows = s.month.all(account, kind, bucketSize, monthsFrom);
    addOne(rows, monthsFrom >= periodMonths, monthsFrom >= windowMonths);
  }
  const wholeDays = union([
    ...daysOutsideMonths(periodDays, periodMonths, monthsEnd, daysEnd),
    ...daysOutsideMonths(windowDays, windowMonths, monthsEnd, daysEnd),
  ]);
  const outsideMonths = (day: number, months: number) => !(day >= months && day < monthsEnd);
  const daysStored = wholeDays.length > 0 ? (s.lastDay.get(account, kind, bucketSize) ?? -DAY_MS) + DAY_MS : 0;
  for (const [rangeFrom, rangeTo] of wholeDays.map(([f, t]) => [f, Math.min(t, daysStored)] as const)) {
    if (rangeTo - rangeFrom === DAY_MS) {
      const key = `${account}\u0000${kind}\u0000${bucketSize}\u0000${rangeFrom}`;
      const rows =
        (reads?.get(key) as readonly OneRow[] | undefined) ?? s.day.all(account, kind, bucketSize, rangeFrom);
      reads?.set(key, rows);
      const forPeriod = rangeFrom >= periodDays && outsideMonths(rangeFrom, periodMonths);
      addOne(rows, forPeriod, rangeFrom >= windowDays && outsideMonths(rangeFrom, windowMonths));
    } else if (rangeFrom < rangeTo) lists.push(s.days.all({ ...bounds, from: rangeFrom, to: rangeTo }));
  }
  const cut = union([
    [from, Math.min(daysFrom, to)],
    [query.windowStart, Math.min(windowDays, to)],
    [query.periodStart, Math.min(periodDays, to)],
    [daysEnd, to],
  ]);
  for (const [rangeFrom, rangeTo] of cut) {
    const range = { ...bounds, from: rangeFrom, to: rangeTo };
    const key = bucketReadKey(range);
    let rows = reads?.get(key) as readonly SpendRow[] | undefined;
    if (!rows) {
      rows = s.buckets.all(range);
      reads?.set(key, rows);
    }
    lists.push(rows);
  }
  return merged(lists);
}

/**
 * The reads' rows added up by resource, in the order of `lists`, ordered by resource id: every
 * read is ordered by resource id (ORDER BY in each statement; ids are ASCII, so SQLite's byte
 * order is JavaScript's), so they are merged, not looked up and sorted.
 */
function merged(lists: ReadonlyArray<readonly SpendRow[]>): ResourceSpend[] {
  const at = lists.map(() => 0);
  const spends: ResourceSpend[] = [];
  for (;;) {
    let next: string | undefined;
    for (const [i, rows] of lists.entries()) {
      const id = rows[at[i] as number]?.[0];
      if (id !== undefined && (next === undefined || id < next)) next = id;
    }
    if (next === undefined) return spends;
    let spend: ResourceSpend | undefined;
    for (const [i, rows] of lists.entries()) {
      const row = rows[at[i] as number];
      if (row?.[0] !== next) continue;
      at[i] = (at[i] as number) + 1;
      if (!spend) spend = { resourceId: next, periodAmount: row[1], windowAmount: row[2], coveredThrough: row[3] };
      else {
        spend.periodAmount += row[1];
        spend.windowAmount += row[2];
        spend.coveredThrough = Math.max(spend.coveredThrough, row[3]);
      }
    }
    if (spend) spends.push(spend);
  }
}

type SpendSince = { account: string; kind: BillingKind; bucketSize: BucketSize; windowStart: number; now: number };

/**
 * Spend per resource of one kind billed from `windowStart` up to `now`, keyed by resource id:
 * the recent billed rate the waste rules and the burn-rate metric work from.
 */
export function spendSinceSync(database: Database, since: SpendSince): ReadonlyMap<string, ResourceSpend> {
  const { account, kind, bucketSize, now, windowStart } = since;
  // Buckets starting at or before `now` are those starting at or before the start of the bucket
  // holding it (every stored bucket starts on a boundary: the billing read refuses any other).
  const periodEnd = bucketFloor(now, bucketSize) + 1;
  const rows = spendByResourceSync(database, {
    account,
    kind,
    bucketSize,
    periodStart: windowStart,
    periodEnd,
    windowStart,
  });
  return new Map(rows.map((row) => [row.resourceId, row]));
}

export const spendByResource = outsideTransaction(spendByResourceSync);
export const spendSince = outsideTransaction(spendSinceSync);
