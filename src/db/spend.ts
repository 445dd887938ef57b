import type { Database } from './open.js';
import type { BillingKind, BucketSize } from './schema.js';
import { cachedRead, perDatabase } from './statements.js';

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

const DAY_MS = 86_400_000;

interface DayQuery extends SpendQuery {
  from: number;
  to: number;
  /** Days read from the buckets instead of the rollup (-1: none). */
  raw1: number;
  raw2: number;
  raw3: number;
}

const statements = perDatabase(({ sqlite }) => ({
  // Whole UTC days from the rollup, each day wholly inside or outside the period and the window.
  days: sqlite.prepare<DayQuery, ResourceSpend>(
    `SELECT resource_id AS resourceId,
       total(CASE WHEN day_start >= @periodStart THEN total_amount END) AS periodAmount,
       total(CASE WHEN day_start >= @windowStart THEN total_amount END) AS windowAmount,
       max(covered_through) AS coveredThrough
     FROM billing_days
     WHERE account = @account AND kind = @kind AND bucket_size = @bucketSize
       AND day_start >= @from AND day_start < @to AND day_start NOT IN (@raw1, @raw2, @raw3)
     GROUP BY resource_id`,
  ),
  // The buckets of one day that a boundary cuts: one range scan of the billing window index.
  buckets: sqlite.prepare<DayQuery, ResourceSpend>(
    `SELECT resource_id AS resourceId,
       total(CASE WHEN start_time >= @periodStart THEN total_amount END) AS periodAmount,
       total(CASE WHEN start_time >= @windowStart THEN total_amount END) AS windowAmount,
       max(min(end_time, fetched_at)) AS coveredThrough
     FROM billing_records
     WHERE account = @account AND kind = @kind AND bucket_size = @bucketSize
       AND start_time >= @from AND start_time < @to
     GROUP BY resource_id`,
  ),
}));

/**
 * Spend per resource of one billing kind, by resource id. The days wholly inside or outside
 * the period and the window come from the daily rollup; only the (at most three) days that
 * the period's start, the window's start or the period's end cut are read bucket by bucket.
 */
function readSpend(database: Database, query: SpendQuery): ResourceSpend[] {
  const s = statements(database);
  const from = Math.min(query.periodStart, query.windowStart);
  const to = query.periodEnd;
  const cut = [...new Set([query.periodStart, query.windowStart, query.periodEnd])]
    .filter((at) => at % DAY_MS !== 0)
    .map((at) => at - (at % DAY_MS));
  const [raw1 = -1, raw2 = -1, raw3 = -1] = cut;
  const byResource = new Map<string, ResourceSpend>();
  const add = (row: ResourceSpend) => {
    const seen = byResource.get(row.resourceId);
    if (!seen) byResource.set(row.resourceId, { ...row });
    else {
      seen.periodAmount += row.periodAmount;
      seen.windowAmount += row.windowAmount;
      seen.coveredThrough = Math.max(seen.coveredThrough, row.coveredThrough);
    }
  };
  for (const row of s.days.all({ ...query, from, to, raw1, raw2, raw3 })) add(row);
  for (const day of new Set(cut)) {
    const range = { from: Math.max(from, day), to: Math.min(to, day + DAY_MS) };
    if (range.from >= range.to) continue;
    for (const row of s.buckets.all({ ...query, ...range, raw1, raw2, raw3 })) add(row);
  }
  return [...byResource.values()].sort((a, b) =>
    a.resourceId < b.resourceId ? -1 : a.resourceId > b.resourceId ? 1 : 0,
  );
}

// Read by every budget, waste rule and spend metric each tick; billing changes a few times an hour.
const cached = cachedRead((database: Database, key: string): readonly ResourceSpend[] =>
  readSpend(database, JSON.parse(key) as SpendQuery),
);

/** Spend per resource of one billing kind, ordered by resource id. Shared between callers: do not modify. */
export function spendByResource(database: Database, query: SpendQuery): readonly ResourceSpend[] {
  const { account, kind, bucketSize, periodStart, periodEnd, windowStart } = query;
  return cached.get(database, JSON.stringify({ account, kind, bucketSize, periodStart, periodEnd, windowStart }));
}

/** Called by every writer of billing_records and billing_days (src/db/billing.ts). */
export function billedSpendChanged(database: Database): void {
  cached.invalidate(database);
}

/**
 * Spend per resource of one kind billed from `windowStart` up to `now`, keyed by resource id:
 * the recent billed rate the waste rules and the burn-rate metric work from.
 */
export function spendSince(
  database: Database,
  since: { account: string; kind: BillingKind; bucketSize: BucketSize; windowStart: number; now: number },
): Map<string, ResourceSpend> {
  const { now, windowStart, ...rest } = since;
  const rows = spendByResource(database, { ...rest, periodStart: windowStart, periodEnd: now + 1, windowStart });
  return new Map(rows.map((row) => [row.resourceId, row]));
}
