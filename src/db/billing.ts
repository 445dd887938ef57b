import { and, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import type { Database } from './open.js';
import { type BillingKind, type BucketSize, billingBackfill, billingRecords } from './schema.js';
import { billedSpendChanged } from './spend.js';
import { cachedRead, perDatabase, placeholdersFor, replaceOnConflict, rowWriter } from './statements.js';

/** One record of a billing route, as reported; `resourceId` is '' for `/billing` and `/billing/endpoints`. */
export interface BillingRecordInput {
  kind: BillingKind;
  resourceId: string;
  bucketSize: BucketSize;
  startTime: number;
  endTime: number;
  totalAmount: number;
  /** Every amount field of the record (totalAmount included), verbatim. */
  amounts: Record<string, number>;
}

export interface BillingUpsertResult {
  /** Buckets that were new or whose amounts changed. */
  written: number;
  /** Buckets already stored with exactly these amounts. */
  unchanged: number;
}

const upsertRecord = perDatabase((database) =>
  rowWriter<typeof billingRecords.$inferInsert>(
    database,
    database.db
      .insert(billingRecords)
      .values(placeholdersFor(billingRecords))
      .onConflictDoUpdate({
        ...replaceOnConflict(billingRecords, [
          billingRecords.account,
          billingRecords.kind,
          billingRecords.resourceId,
          billingRecords.bucketSize,
          billingRecords.startTime,
        ]),
        // A bucket re-read with the same amounts is left alone, fetched_at included, so a
        // re-poll of an overlapping window changes nothing and `written` counts real corrections.
        setWhere: sql`${billingRecords.totalAmount} IS NOT excluded.total_amount
        OR ${billingRecords.amounts} IS NOT excluded.amounts
        OR ${billingRecords.endTime} IS NOT excluded.end_time`,
      }),
  ),
);

/** Idempotent: a bucket is keyed by (account, kind, resourceId, bucketSize, startTime). */
export function upsertBillingRecords(
  database: Database,
  account: string,
  records: readonly BillingRecordInput[],
  fetchedAt: number,
): BillingUpsertResult {
  const upsert = upsertRecord(database);
  let written = 0;
  database.transaction(() => {
    for (const record of records) written += upsert({ ...record, account, fetchedAt });
  });
  // billing_days follows by triggers (migrations/0006); what was read from it is stale now.
  billedSpendChanged(database);
  return { written, unchanged: records.length - written };
}

/** A stored bucket as the re-read compares it: resource_id, start_time, end_time, total_amount, amounts. */
type StoredBucket = [string, number, number, number, string];

// Raw arrays, not drizzle objects: a re-read compares ~100,000 stored buckets of `large` per cycle.
const bucketsInWindow = perDatabase(({ sqlite }) =>
  sqlite
    .prepare(
      `SELECT resource_id, start_time, end_time, total_amount, amounts FROM billing_records
       WHERE account = ? AND kind = ? AND bucket_size = ? AND start_time >= ? AND start_time < ?`,
    )
    .raw(),
);

const deleteBucket = perDatabase(({ sqlite }) =>
  sqlite.prepare(
    'DELETE FROM billing_records WHERE account = ? AND kind = ? AND resource_id = ? AND bucket_size = ? AND start_time = ?',
  ),
);

/**
 * Makes the stored buckets of `window` exactly `records` (all of its kind and bucket size), in one
 * transaction: writes what is new or changed and deletes stored buckets the API no longer reports
 * (billing is sparse, so a bucket whose money was withdrawn simply stops appearing; keeping its
 * old amount would count money that is not owed). Buckets re-read with the same amounts are
 * compared in memory and not written at all: most of a re-read window is unchanged, and an
 * upsert that changes nothing still costs a statement per row.
 */
export function replaceBillingWindow(
  database: Database,
  window: BillingWindow,
  records: readonly BillingRecordInput[],
  fetchedAt: number,
): { written: number; deleted: number } {
  const { account, kind, bucketSize, from, to } = window;
  const upsert = upsertRecord(database);
  const remove = deleteBucket(database);
  let written = 0;
  let deleted = 0;
  database.transaction(() => {
    const stored = new Map<string, StoredBucket>();
    for (const row of bucketsInWindow(database).all(account, kind, bucketSize, from, to) as StoredBucket[]) {
      stored.set(bucketKey(row[0], row[1]), row);
    }
    for (const record of records) {
      const key = bucketKey(record.resourceId, record.startTime);
      const old = stored.get(key);
      stored.delete(key);
      // The same test as the upsert's conflict clause, so `written` still counts real corrections.
      const same =
        old !== undefined &&
        old[2] === record.endTime &&
        old[3] === record.totalAmount &&
        old[4] === JSON.stringify(record.amounts);
      if (!same) written += upsert({ ...record, account, fetchedAt });
    }
    for (const [resourceId, startTime] of stored.values()) {
      deleted += remove.run(account, kind, resourceId, bucketSize, startTime).changes;
    }
  });
  if (written + deleted > 0) billedSpendChanged(database);
  return { written, deleted };
}

function bucketKey(resourceId: string, startTime: number): string {
  return `${startTime}\u0000${resourceId}`;
}

export interface BillingWindow {
  account: string;
  kind: BillingKind;
  bucketSize: BucketSize;
  /** Buckets whose startTime lies in [from, to). */
  from: number;
  to: number;
}

function inWindow(window: BillingWindow): SQL | undefined {
  return and(
    eq(billingRecords.account, window.account),
    eq(billingRecords.kind, window.kind),
    eq(billingRecords.bucketSize, window.bucketSize),
    gte(billingRecords.startTime, window.from),
    lt(billingRecords.startTime, window.to),
  );
}

/** Total per resource over a window, from stored buckets of one size (sizes never mix: no double count). */
export function sumBillingByResource(
  database: Database,
  window: BillingWindow,
): Array<{ resourceId: string; totalAmount: number }> {
  return database.db
    .select({ resourceId: billingRecords.resourceId, totalAmount: sql<number>`total(${billingRecords.totalAmount})` })
    .from(billingRecords)
    .where(inWindow(window))
    .groupBy(billingRecords.resourceId)
    .orderBy(billingRecords.resourceId)
    .all();
}

/** Total of one kind over a window (every resource). */
export function sumBilling(database: Database, window: BillingWindow): number {
  const row = database.db
    .select({ totalAmount: sql<number>`total(${billingRecords.totalAmount})` })
    .from(billingRecords)
    .where(inWindow(window))
    .get();
  return row?.totalAmount ?? 0;
}

export type BillingRecord = typeof billingRecords.$inferSelect;

/** Stored buckets of one kind in a window, oldest first (for reports and tests against ground truth). */
export function billingRecordsIn(database: Database, window: BillingWindow): BillingRecord[] {
  return recordsInWindow(database).all({ ...window });
}

// Read for every page the billing collector stores (a replayed day stores thousands).
const recordsInWindow = perDatabase((database) =>
  database.db
    .select()
    .from(billingRecords)
    .where(
      and(
        eq(billingRecords.account, sql.placeholder('account')),
        eq(billingRecords.kind, sql.placeholder('kind')),
        eq(billingRecords.bucketSize, sql.placeholder('bucketSize')),
        gte(billingRecords.startTime, sql.placeholder('from')),
        lt(billingRecords.startTime, sql.placeholder('to')),
      ),
    )
    .orderBy(billingRecords.startTime, billingRecords.resourceId)
    .prepare(),
);

export type BackfillKey = { account: string; kind: BillingKind; bucketSize: BucketSize };
export type BackfillProgress = typeof billingBackfill.$inferSelect;

function byKey(key: BackfillKey): SQL | undefined {
  return and(
    eq(billingBackfill.account, key.account),
    eq(billingBackfill.kind, key.kind),
    eq(billingBackfill.bucketSize, key.bucketSize),
  );
}

export function getBackfill(database: Database, key: BackfillKey): BackfillProgress | undefined {
  return backfills.get(database, `${key.account}\u0000${key.kind}\u0000${key.bucketSize}`) ?? undefined;
}

// Read by every budget each tick (where its history begins); written a few times per billing run.
const backfills = cachedRead((database: Database, key: string): BackfillProgress | null => {
  const [account, kind, bucketSize] = key.split('\u0000') as [string, BillingKind, BucketSize];
  return database.db.select().from(billingBackfill).where(byKey({ account, kind, bucketSize })).get() ?? null;
});

/**
 * Starts a backfill that walks back from `from` to `targetStartTime`, or returns the one already
 * under way (after a crash) unchanged, so the caller resumes at its cursor.
 */
export function beginBackfill(
  database: Database,
  key: BackfillKey,
  range: { from: number; targetStartTime: number },
): BackfillProgress {
  backfills.invalidate(database);
  database.db
    .insert(billingBackfill)
    .values({ ...key, cursorStartTime: range.from, targetStartTime: range.targetStartTime, doneAt: null })
    .onConflictDoNothing()
    .run();
  const progress = getBackfill(database, key);
  if (!progress) throw new Error(`begin billing backfill ${key.kind}/${key.bucketSize}: row vanished`);
  return progress;
}

/**
 * Records that everything from `cursorStartTime` on is stored. The cursor only moves back, so
 * replaying an older step is harmless; call it in the transaction that stored the window.
 */
export function advanceBackfill(database: Database, key: BackfillKey, cursorStartTime: number): void {
  backfills.invalidate(database);
  database.db
    .update(billingBackfill)
    .set({ cursorStartTime: sql`min(${billingBackfill.cursorStartTime}, ${cursorStartTime})` })
    .where(byKey(key))
    .run();
}

export function completeBackfill(database: Database, key: BackfillKey, doneAt: number): void {
  backfills.invalidate(database);
  database.db
    .update(billingBackfill)
    .set({ doneAt: sql`coalesce(${billingBackfill.doneAt}, ${doneAt})` })
    .where(byKey(key))
    .run();
}
