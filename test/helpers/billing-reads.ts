import { and, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import { type BillingWindow, type ReportedBucket, replaceBillingBuckets } from '../../src/db/billing.js';
import { type BillingRecordInput, byStartTime } from '../../src/db/billing-writer.js';
import type { Database } from '../../src/db/open.js';
import { billingRecords } from '../../src/db/schema.js';

export type BillingRecord = typeof billingRecords.$inferSelect;

function inWindow(window: BillingWindow): SQL | undefined {
  return and(
    eq(billingRecords.account, window.account),
    eq(billingRecords.kind, window.kind),
    eq(billingRecords.bucketSize, window.bucketSize),
    gte(billingRecords.startTime, window.from),
    lt(billingRecords.startTime, window.to),
  );
}

/**
 * Makes the stored buckets of `window` exactly `records` (all of its kind and bucket size), in one
 * transaction, as the billing collector's replaceBillingBuckets does; records without their text
 * write no digest.
 */
export async function replaceBillingWindow(
  database: Database,
  window: BillingWindow,
  records: readonly BillingRecordInput[],
  fetchedAt: number,
): Promise<{ written: number; deleted: number }> {
  const buckets = [...byStartTime(records)].map(
    ([startTime, bucket]): ReportedBucket => ({ startTime, digest: null, records: () => bucket }),
  );
  return replaceBillingBuckets(database, window, buckets, fetchedAt);
}

/** Total per resource over a window, from stored buckets of one size, by resource id. */
export async function sumBillingByResource(
  database: Database,
  window: BillingWindow,
): Promise<Array<{ resourceId: string; totalAmount: number }>> {
  return database.db
    .select({ resourceId: billingRecords.resourceId, totalAmount: sql<number>`total(${billingRecords.totalAmount})` })
    .from(billingRecords)
    .where(inWindow(window))
    .groupBy(billingRecords.resourceId)
    .orderBy(billingRecords.resourceId)
    .all();
}

/** Total of one kind over a window (every resource). */
export async function sumBilling(database: Database, window: BillingWindow): Promise<number> {
  const row = database.db
    .select({ totalAmount: sql<number>`total(${billingRecords.totalAmount})` })
    .from(billingRecords)
    .where(inWindow(window))
    .get();
  return row?.totalAmount ?? 0;
}

/** Stored buckets of one kind in a window, oldest first (for tests against ground truth). */
export async function billingRecordsIn(database: Database, window: BillingWindow): Promise<BillingRecord[]> {
  return database.db
    .select()
    .from(billingRecords)
    .where(inWindow(window))
    .orderBy(billingRecords.startTime, billingRecords.resourceId)
    .all();
}
