import { billsCompute, DayRollup } from './billing-days.js';
import { groupBy } from './group-by.js';
import type { Database } from './open.js';
import { BATCH_ROWS, RowBatch, valuesOf } from './row-batch.js';
import type { BillingKind, BucketSize } from './schema.js';
import { perDatabase } from './statements.js';

/** One record of a billing route, as reported; `resourceId` is '' for `/billing` and `/billing/endpoints`. */
export interface BillingRecordInput {
  kind: BillingKind;
  resourceId: string;
  bucketSize: BucketSize;
  startTime: number;
  endTime: number;
  totalAmount: number;
  /** Every amount field of the record (totalAmount included), verbatim; never changed once made (it may be shared). */
  amounts: Record<string, number>;
  /** JSON.stringify(amounts), when whoever made the record has it already (billing-amounts.ts). */
  amountsText?: string;
}

/** Records by the start of their bucket, in the order they come. */
export const byStartTime = (records: readonly BillingRecordInput[]) => groupBy(records, (record) => record.startTime);

/** A stored bucket as a write compares it: resource_id, start_time, end_time, total_amount, amounts. */
export type StoredBucket = [string, number, number, number, string];

const COLUMNS = '(account, kind, resource_id, bucket_size, start_time, end_time, total_amount, amounts, fetched_at)';
/** One row of an insert: what a batch's rows share bound by name, PER_ROW values of its own (row-batch.ts). */
const ROW = '(@account, @kind, ?, @bucketSize, ?, ?, ?, ?, @fetchedAt)';
const PER_ROW = 5;
const BUCKET = 'account = ? AND kind = ? AND bucket_size = ? AND start_time = ?';

const statements = perDatabase(({ sqlite }) => ({
  // Plain inserts: whoever writes has read what is stored, so a conflict is a bug and must fail loudly.
  insertOne: sqlite.prepare(`INSERT INTO billing_records ${COLUMNS} VALUES ${ROW}`),
  insertBatch: sqlite.prepare(`INSERT INTO billing_records ${COLUMNS} VALUES ${valuesOf(ROW, BATCH_ROWS)}`),
  update: sqlite.prepare(
    `UPDATE billing_records SET end_time = ?, total_amount = ?, amounts = ?, fetched_at = ?
     WHERE ${BUCKET} AND resource_id = ?`,
  ),
  remove: sqlite.prepare(`DELETE FROM billing_records WHERE ${BUCKET} AND resource_id = ?`),
  removeBucket: sqlite.prepare(`DELETE FROM billing_records WHERE ${BUCKET} RETURNING resource_id`).pluck(),
  // Raw arrays, not drizzle objects: a bucket of `large` holds ~2,000 Pods.
  bucket: sqlite
    .prepare(`SELECT resource_id, start_time, end_time, total_amount, amounts FROM billing_records WHERE ${BUCKET}`)
    .raw(),
}));

/**
 * The bucket writes of one transaction: new buckets go out in multi-row inserts, changed ones
 * one update each (few: a re-read mostly finds what is stored), and billing_days follows in the
 * same transaction (billing-days.ts). `finish` must run before the transaction commits.
 */
export class BucketWriter {
  private readonly s: ReturnType<typeof statements>;
  private readonly rollup: DayRollup;
  /** The rows not inserted yet, all of its `shared` kind and size. */
  private readonly inserts: RowBatch<{ account: string; kind: BillingKind; bucketSize: BucketSize; fetchedAt: number }>;
  written = 0;
  deleted = 0;

  constructor(
    database: Database,
    private readonly account: string,
    private readonly fetchedAt: number,
  ) {
    this.s = statements(database);
    this.rollup = new DayRollup(database, account);
    const shared = { account, kind: 'account' as BillingKind, bucketSize: 'hour' as BucketSize, fetchedAt };
    this.inserts = new RowBatch(this.s.insertOne, this.s.insertBatch, PER_ROW, shared);
  }

  /**
   * Makes the stored rows of one bucket (one start time) exactly `records`, comparing each with
   * what is stored under its resource. `stored` false says the bucket holds no rows (nothing to
   * read back: a backfill's buckets are all new).
   */
  replaceBucket(
    kind: BillingKind,
    bucketSize: BucketSize,
    startTime: number,
    records: readonly BillingRecordInput[],
    stored: boolean,
  ): void {
    if (!stored && increasing(records)) {
      // A new bucket whose resources come each once (in order, as the API lists them): every
      // record is new, with nothing to compare it with (a backfill's case: no tuple to return).
      for (const record of records) this.insert(record, record.amountsText ?? JSON.stringify(record.amounts));
      return;
    }
    // By resource: what is stored, then what this call wrote (a resource listed twice is
    // compared with its first version, as upsertBillingRecords does).
    const current = new Map<string, StoredBucket>();
    if (stored) {
      for (const row of this.s.bucket.all(this.account, kind, bucketSize, startTime) as StoredBucket[]) {
        current.set(row[0], row);
      }
    }
    const storedCount = current.size;
    const reported = storedCount > 0 ? new Set<string>() : undefined;
    for (const record of records) {
      reported?.add(record.resourceId);
      current.set(record.resourceId, this.write(record, current.get(record.resourceId)));
    }
    if (reported === undefined) return;
    for (const resourceId of current.keys()) {
      if (!reported.has(resourceId)) this.remove(kind, bucketSize, resourceId, startTime);
    }
  }

  /** Deletes every stored row of a bucket the API no longer reports. */
  removeBucket(kind: BillingKind, bucketSize: BucketSize, startTime: number): void {
    this.inserts.flush();
    const gone = this.s.removeBucket.all(this.account, kind, bucketSize, startTime) as string[];
    for (const resourceId of gone) this.rollup.removed(kind, bucketSize, resourceId, startTime);
    this.deleted += gone.length;
  }

  /**
   * Stores `record` over `old` (what is stored under its key, if anything) unless it says the
   * same; returns what is stored now.
   */
  write(record: BillingRecordInput, old: StoredBucket | undefined): StoredBucket {
    const amounts = record.amountsText ?? JSON.stringify(record.amounts);
    // A bucket re-read with the same amounts is left alone, fetched_at included, so a re-poll of
    // an overlapping window changes nothing and `written` counts real corrections.
    if (old !== undefined && old[2] === record.endTime && old[3] === record.totalAmount && old[4] === amounts) {
      return old;
    }
    const { kind, bucketSize, resourceId, startTime, endTime, totalAmount } = record;
    if (old === undefined) {
      this.insert(record, amounts);
    } else {
      this.inserts.flush();
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
      const was = { resourceId, startTime, endTime: old[2], totalAmount: old[3], compute };
      const bucket = { resourceId, startTime, endTime, totalAmount, compute: billsCompute(record.amounts) };
      this.rollup.changed(kind, bucketSize, was, bucket, Math.min(endTime, this.fetchedAt));
      this.written++;
    }
    return [resourceId, startTime, endTime, totalAmount, amounts];
  }

  /** Inserts a record nothing is stored under; `amounts` is its amounts' JSON text. */
  private insert(record: BillingRecordInput, amounts: string): void {
    const { kind, bucketSize, resourceId, startTime, endTime, totalAmount } = record;
    const inserts = this.inserts;
    const shared = inserts.shared;
    if (kind !== shared.kind || bucketSize !== shared.bucketSize) {
      inserts.flush();
      shared.kind = kind;
      shared.bucketSize = bucketSize;
    }
    inserts.values.push(resourceId, startTime, endTime, totalAmount, amounts);
    inserts.added();
    const covered = Math.min(endTime, this.fetchedAt);
    this.rollup.added(
      kind,
      bucketSize,
      resourceId,
      startTime,
      endTime,
      totalAmount,
      covered,
      billsCompute(record.amounts),
    );
    this.written++;
  }

  remove(kind: BillingKind, bucketSize: BucketSize, resourceId: string, startTime: number): void {
    this.inserts.flush();
    const changes = this.s.remove.run(this.account, kind, bucketSize, startTime, resourceId).changes;
    if (changes > 0) this.rollup.removed(kind, bucketSize, resourceId, startTime);
    this.deleted += changes;
  }

  finish(): void {
    this.inserts.flush();
    this.rollup.finish();
  }
}

/** Whether the records' resource ids strictly increase: then none is listed twice. */
function increasing(records: readonly BillingRecordInput[]): boolean {
  return records.every((record, i) => i === 0 || record.resourceId > (records[i - 1] as BillingRecordInput).resourceId);
}
