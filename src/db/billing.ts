import { and, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import { billsCompute, DayRollup } from './billing-days.js';
import type { Database } from './open.js';
import { type BillingKind, type BucketSize, billingBackfill, billingRecords } from './schema.js';
import { billedSpendChanged } from './spend.js';
import { cachedRead, perDatabase } from './statements.js';

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

/** A stored bucket as a write compares it: resource_id, start_time, end_time, total_amount, amounts. */
type StoredBucket = [string, number, number, number, string];

const COLUMNS = '(account, kind, resource_id, bucket_size, start_time, end_time, total_amount, amounts, fetched_at)';
/** Rows per multi-row INSERT: one statement step for many rows (9 parameters each, far below SQLite's limit). */
const BATCH = 64;

const statements = perDatabase(({ sqlite }) => ({
  // Plain inserts: whoever writes has read what is stored, so a conflict is a bug and must fail loudly.
  insertOne: sqlite.prepare(`INSERT INTO billing_records ${COLUMNS} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
  insertBatch: sqlite.prepare(
    `INSERT INTO billing_records ${COLUMNS} VALUES ${Array(BATCH).fill('(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
  ),
  update: sqlite.prepare(
    `UPDATE billing_records SET end_time = ?, total_amount = ?, amounts = ?, fetched_at = ?
     WHERE account = ? AND kind = ? AND bucket_size = ? AND start_time = ? AND resource_id = ?`,
  ),
  remove: sqlite.prepare(
    'DELETE FROM billing_records WHERE account = ? AND kind = ? AND bucket_size = ? AND start_time = ? AND resource_id = ?',
  ),
  // Raw arrays, not drizzle objects: a re-read compares ~100,000 stored buckets of `large` per cycle.
  window: sqlite
    .prepare(
      `SELECT resource_id, start_time, end_time, total_amount, amounts FROM billing_records
       WHERE account = ? AND kind = ? AND bucket_size = ? AND start_time >= ? AND start_time < ?`,
    )
    .raw(),
  one: sqlite
    .prepare(
      `SELECT resource_id, start_time, end_time, total_amount, amounts FROM billing_records
       WHERE account = ? AND kind = ? AND bucket_size = ? AND start_time = ? AND resource_id = ?`,
    )
    .raw(),
}));

/**
 * The bucket writes of one transaction: new buckets go out in multi-row inserts, changed ones
 * one update each (few: a re-read mostly finds what is stored), and billing_days follows in the
 * same transaction (billing-days.ts). `finish` must run before the transaction commits.
 */
class BucketWriter {
  private readonly s: ReturnType<typeof statements>;
  private readonly rollup: DayRollup;
  private readonly pending: unknown[] = [];
  written = 0;
  deleted = 0;

  constructor(
    private readonly database: Database,
    private readonly account: string,
    private readonly fetchedAt: number,
  ) {
    this.s = statements(database);
    this.rollup = new DayRollup(database, account);
  }

  /**
   * Stores `record` over `old` (what is stored under its key, if anything) unless it says the
   * same; returns what is stored now.
   */
  write(record: BillingRecordInput, old: StoredBucket | undefined): StoredBucket {
    const amounts = JSON.stringify(record.amounts);
    // A bucket re-read with the same amounts is left alone, fetched_at included, so a re-poll of
    // an overlapping window changes nothing and `written` counts real corrections.
    if (old !== undefined && old[2] === record.endTime && old[3] === record.totalAmount && old[4] === amounts) {
      return old;
    }
    const { kind, bucketSize, resourceId, startTime, endTime, totalAmount } = record;
    const bucket = { resourceId, startTime, endTime, totalAmount, fetchedAt: this.fetchedAt, compute: false };
    bucket.compute = billsCompute(record.amounts);
    if (old === undefined) {
      this.pending.push(this.account, kind, resourceId, bucketSize, startTime, endTime, totalAmount, amounts);
      this.pending.push(this.fetchedAt);
      if (this.pending.length === BATCH * 9) this.flushInserts();
      this.rollup.added(kind, bucketSize, bucket);
    } else {
      this.flushInserts();
      this.s.update.run(
        endTime,
        totalAmount,
        amounts,
        this.fetchedAt,
        this.account,
        kind,
        bucketSize,
        startTime,
        resourceId,
      );
      const compute = billsCompute(JSON.parse(old[4]));
      const was = { resourceId, startTime, endTime: old[2], totalAmount: old[3], fetchedAt: 0, compute };
      this.rollup.changed(kind, bucketSize, was, bucket);
    }
    this.written++;
    return [resourceId, startTime, endTime, totalAmount, amounts];
  }

  remove(kind: BillingKind, bucketSize: BucketSize, resourceId: string, startTime: number): void {
    this.flushInserts();
    const changes = this.s.remove.run(this.account, kind, bucketSize, startTime, resourceId).changes;
    if (changes > 0) this.rollup.removed(kind, bucketSize, resourceId, startTime);
    this.deleted += changes;
  }

  finish(): void {
    this.flushInserts();
    this.rollup.finish();
    if (this.written + this.deleted > 0) billedSpendChanged(this.database);
  }

  private flushInserts(): void {
    const values = this.pending;
    if (values.length === BATCH * 9) this.s.insertBatch.run(values);
    else for (let i = 0; i < values.length; i += 9) this.s.insertOne.run(values.slice(i, i + 9));
    values.length = 0;
  }
}

/** Idempotent: a bucket is keyed by (account, kind, bucketSize, startTime, resourceId). */
export function upsertBillingRecords(
  database: Database,
  account: string,
  records: readonly BillingRecordInput[],
  fetchedAt: number,
): BillingUpsertResult {
  const { one } = statements(database);
  const writer = new BucketWriter(database, account, fetchedAt);
  database.transaction(() => {
    // What this call wrote, so a bucket listed twice is compared with its first version.
    const current = new Map<string, StoredBucket>();
    for (const record of records) {
      const key = `${record.kind}\u0000${record.bucketSize}\u0000${bucketKey(record.resourceId, record.startTime)}`;
      const old =
        current.get(key) ??
        (one.get(account, record.kind, record.bucketSize, record.startTime, record.resourceId) as
          | StoredBucket
          | undefined);
      current.set(key, writer.write(record, old));
    }
    writer.finish();
  });
  return { written: writer.written, unchanged: records.length - writer.written };
}

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
  const writer = new BucketWriter(database, account, fetchedAt);
  database.transaction(() => {
    const stored = new Map<string, StoredBucket>();
    for (const row of statements(database).window.all(account, kind, bucketSize, from, to) as StoredBucket[]) {
      stored.set(bucketKey(row[0], row[1]), row);
    }
    const reported = new Set<string>();
    for (const record of records) {
      const key = bucketKey(record.resourceId, record.startTime);
      reported.add(key);
      stored.set(key, writer.write(record, stored.get(key)));
    }
    for (const [key, [resourceId, startTime]] of stored) {
      if (!reported.has(key)) writer.remove(kind, bucketSize, resourceId, startTime);
    }
    writer.finish();
  });
  return { written: writer.written, deleted: writer.deleted };
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
