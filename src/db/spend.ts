import type { Database } from './open.js';
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

const statement = perDatabase(({ sqlite }) =>
  sqlite.prepare<SpendQuery, ResourceSpend>(
    `SELECT resource_id AS resourceId,
       total(CASE WHEN start_time >= @periodStart THEN total_amount END) AS periodAmount,
       total(CASE WHEN start_time >= @windowStart THEN total_amount END) AS windowAmount,
       max(min(end_time, fetched_at)) AS coveredThrough
     FROM billing_records
     WHERE account = @account AND kind = @kind AND bucket_size = @bucketSize
       AND start_time >= min(@periodStart, @windowStart) AND start_time < @periodEnd
     GROUP BY resource_id
     ORDER BY resource_id`,
  ),
);

/** Spend per resource of one billing kind: one range scan of the billing window index. */
export function spendByResource(database: Database, query: SpendQuery): ResourceSpend[] {
  return statement(database).all(query);
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
