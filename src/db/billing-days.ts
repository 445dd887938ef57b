import { DAY_MS } from '../buckets.js';
import { MonthRollup } from './billing-months.js';
import type { Database } from './open.js';
import { BATCH_ROWS, RowBatch, valuesOf } from './row-batch.js';
import type { BillingKind, BucketSize } from './schema.js';
import { perDatabase } from './statements.js';

/** What billing_days keeps of one bucket: enough to add it, take it back, and see compute. */
export interface DayBucket {
  resourceId: string;
  startTime: number;
  endTime: number;
  totalAmount: number;
  /** gpuAmount + cpuAmount > 0: the bucket billed compute. */
  compute: boolean;
}

/** Whether a bucket's amounts bill compute (GPU or CPU). */
export function billsCompute(amounts: Record<string, number>): boolean {
  return (amounts.gpuAmount ?? 0) + (amounts.cpuAmount ?? 0) > 0;
}

/** A billing_days row as read and written here. */
interface Day {
  total: number;
  covered: number;
  computeStart: number | null;
  computeEnd: number | null;
  /** Written back at the end (changed here). */
  touched: boolean;
  /** Summed again from billing_records at the end: a bucket was deleted. */
  resum: boolean;
  /** Its compute columns read again from billing_records at the end: a compute bucket shrank. */
  recompute: boolean;
}

const NO_COMPUTE = { computeStart: null, computeEnd: null };
const UNCHANGED = { touched: false, resum: false, recompute: false };

type DayRow = [string, number, number, number | null, number | null];

/** What a day's row binds of its own: the columns the days of one statement share are bound by name (row-batch.ts). */
const PER_ROW = 5;

/** The upsert of `rows` days of one kind, size and UTC day. */
function write(rows: number): string {
  const row = '(@account, @kind, @bucketSize, @dayStart, ?, ?, ?, ?, ?)';
  return `INSERT INTO billing_days (account, kind, bucket_size, day_start, resource_id, total_amount, covered_through,
       compute_start, compute_end) VALUES ${valuesOf(row, rows)}
     ON CONFLICT DO UPDATE SET total_amount = excluded.total_amount, covered_through = excluded.covered_through,
       compute_start = excluded.compute_start, compute_end = excluded.compute_end`;
}

const statements = perDatabase(({ sqlite }) => ({
  read: sqlite
    .prepare(
      `SELECT resource_id, total_amount, covered_through, compute_start, compute_end FROM billing_days
       WHERE account = ? AND kind = ? AND bucket_size = ? AND day_start = ?`,
    )
    .raw(),
  writeOne: sqlite.prepare(write(1)),
  writeBatch: sqlite.prepare(write(BATCH_ROWS)),
  // What the delete trigger of migrations/0009 did: the day summed again from what is left.
  drop: sqlite.prepare(
    'DELETE FROM billing_days WHERE account = ? AND kind = ? AND bucket_size = ? AND day_start = ? AND resource_id = ?',
  ),
  resum: sqlite.prepare(
    `INSERT INTO billing_days (account, kind, bucket_size, day_start, resource_id, total_amount, covered_through,
       compute_start, compute_end)
     SELECT account, kind, bucket_size, @dayStart, resource_id, total(total_amount), max(min(end_time, fetched_at)),
       max(CASE WHEN ${COMPUTE_SQL} THEN start_time END), max(CASE WHEN ${COMPUTE_SQL} THEN end_time END)
     FROM billing_records
     WHERE account = @account AND kind = @kind AND bucket_size = @bucketSize AND start_time >= @dayStart AND start_time < @dayStart + ${DAY_MS}
       AND resource_id = @resourceId
     GROUP BY resource_id`,
  ),
  recompute: sqlite.prepare(
    `UPDATE billing_days SET (compute_start, compute_end) = (
       SELECT max(start_time), max(end_time) FROM billing_records
       WHERE account = @account AND kind = @kind AND bucket_size = @bucketSize AND start_time >= @dayStart AND start_time < @dayStart + ${DAY_MS}
         AND resource_id = @resourceId AND ${COMPUTE_SQL})
     WHERE account = @account AND kind = @kind AND bucket_size = @bucketSize AND day_start = @dayStart AND resource_id = @resourceId`,
  ),
}));

/** billsCompute in SQL, for the days summed again from billing_records. */
const COMPUTE_SQL =
  "coalesce(json_extract(amounts, '$.gpuAmount'), 0) + coalesce(json_extract(amounts, '$.cpuAmount'), 0) > 0";

/**
 * billing_days kept in step with the bucket writes of one transaction: each day a write touches
 * is read once, changed in memory, and written once at `finish` (after the buckets). A new bucket
 * adds its amount, a changed one takes the old amount back and adds the new, in write order; a
 * deleted bucket has its day summed again.
 */
export class DayRollup {
  private readonly days = new Map<string, Map<string, Day>>();
  /** The day last used: consecutive buckets mostly share one. */
  private last: { kind: string; bucketSize: string; dayStart: number; days: Map<string, Day> } | undefined;
  /** billing_months follows the days written here. */
  private readonly months: MonthRollup;

  constructor(
    private readonly database: Database,
    private readonly account: string,
  ) {
    this.months = new MonthRollup(database, account);
  }

  /** A new bucket, in parts (a backfill adds millions: no object each); `covered` is min(endTime, fetchedAt). */
  added(
    kind: BillingKind,
    bucketSize: BucketSize,
    resourceId: string,
    startTime: number,
    endTime: number,
    totalAmount: number,
    covered: number,
    compute: boolean,
  ): void {
    const days = this.dayOf(kind, bucketSize, startTime);
    let day = days.get(resourceId);
    if (!day) {
      day = { total: totalAmount, covered, ...NO_COMPUTE, touched: true, resum: false, recompute: false };
      days.set(resourceId, day);
    } else {
      day.total = day.total + totalAmount;
      day.covered = Math.max(day.covered, covered);
      day.touched = true;
    }
    if (compute) {
      day.computeStart = day.computeStart === null ? startTime : Math.max(day.computeStart, startTime);
      day.computeEnd = day.computeEnd === null ? endTime : Math.max(day.computeEnd, endTime);
    }
  }

  /** A stored bucket written over: `old` as it was, `bucket` as it is now, `covered` as for added. */
  changed(kind: BillingKind, bucketSize: BucketSize, old: DayBucket, bucket: DayBucket, covered: number): void {
    const day = this.dayOf(kind, bucketSize, old.startTime).get(old.resourceId);
    if (day) {
      day.total = day.total - old.totalAmount;
      // The day's latest compute may have been this bucket as it was: read it again at the end.
      if (old.compute && !(bucket.compute && bucket.endTime >= old.endTime)) day.recompute = true;
    }
    const { resourceId, startTime, endTime, totalAmount, compute } = bucket;
    this.added(kind, bucketSize, resourceId, startTime, endTime, totalAmount, covered, compute);
  }

  removed(kind: BillingKind, bucketSize: BucketSize, resourceId: string, startTime: number): void {
    const days = this.dayOf(kind, bucketSize, startTime);
    const day = days.get(resourceId);
    if (day) day.resum = true;
    else days.set(resourceId, { total: 0, covered: 0, ...NO_COMPUTE, ...UNCHANGED, resum: true });
  }

  /** Writes the touched days, then their months; call after every bucket write of the transaction. */
  finish(): void {
    const s = statements(this.database);
    const writes = new RowBatch(s.writeOne, s.writeBatch, PER_ROW, {
      account: this.account,
      kind: '',
      bucketSize: '',
      dayStart: 0,
    });
    const { shared } = writes;
    for (const [key, days] of this.days) {
      writes.flush();
      const [kind, bucketSize, dayStartText] = key.split('\u0000') as [string, string, string];
      shared.kind = kind;
      shared.bucketSize = bucketSize;
      shared.dayStart = Number(dayStartText);
      for (const [resourceId, day] of days) {
        if (day.resum || day.touched) {
          this.months.changed(kind as BillingKind, bucketSize as BucketSize, shared.dayStart, resourceId);
        }
        if (day.resum) {
          writes.flush();
          const { account, dayStart } = shared;
          s.drop.run(account, kind, bucketSize, dayStart, resourceId);
          s.resum.run({ account, kind, bucketSize, dayStart, resourceId });
          continue;
        }
        if (day.touched) {
          writes.values.push(resourceId, day.total, day.covered, day.computeStart, day.computeEnd);
          writes.added();
        }
        if (day.recompute) {
          // After the day's own write: it reads what the write left.
          writes.flush();
          s.recompute.run({ account: this.account, kind, bucketSize, dayStart: shared.dayStart, resourceId });
        }
      }
    }
    writes.flush();
    this.months.finish();
    this.days.clear();
    this.last = undefined;
  }

  /** The stored days of one kind, size and UTC day, by resource, read on first use. */
  private dayOf(kind: BillingKind, bucketSize: BucketSize, startTime: number): Map<string, Day> {
    const dayStart = startTime - (startTime % DAY_MS);
    const last = this.last;
    if (last && last.dayStart === dayStart && last.kind === kind && last.bucketSize === bucketSize) return last.days;
    const key = `${kind}\u0000${bucketSize}\u0000${dayStart}`;
    let days = this.days.get(key);
    if (!days) {
      days = new Map();
      const rows = statements(this.database).read.all(this.account, kind, bucketSize, dayStart) as DayRow[];
      for (const [resourceId, total, covered, computeStart, computeEnd] of rows) {
        days.set(resourceId, { total, covered, computeStart, computeEnd, ...UNCHANGED });
      }
      this.days.set(key, days);
    }
    this.last = { kind, bucketSize, dayStart, days };
    return days;
  }
}
