import { type BillingScope, digestsIn, dropDigest, storedStartsIn, writeDigest } from './billing-digest.js';
import { type BillingRecordInput, BucketWriter, type StoredBucket } from './billing-writer.js';
import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import type { billingBackfill } from './schema.js';
import { perDatabase } from './statements.js';

export type { BillingRecordInput } from './billing-writer.js';

const statements = perDatabase(({ sqlite }) => ({
  one: sqlite
    .prepare(
      `SELECT resource_id, start_time, end_time, total_amount, amounts FROM billing_records
       WHERE account = ? AND kind = ? AND bucket_size = ? AND start_time = ? AND resource_id = ?`,
    )
    .raw(),
}));

/**
 * Idempotent: a bucket is keyed by (account, kind, bucketSize, startTime, resourceId). `written`
 * counts the buckets new or changed, `unchanged` those already stored with exactly these amounts.
 */
export async function upsertBillingRecords(
  database: Database,
  account: string,
  records: readonly BillingRecordInput[],
  fetchedAt: number,
): Promise<{ written: number; unchanged: number }> {
  const { one } = statements(database);
  const writer = new BucketWriter(database, account, fetchedAt);
  database.transaction(() => {
    // What this call wrote, so a bucket listed twice is compared with its first version.
    const current = new Map<string, StoredBucket>();
    for (const record of records) {
      const key = `${record.kind}\u0000${record.bucketSize}\u0000${record.startTime}\u0000${record.resourceId}`;
      const old =
        current.get(key) ??
        (one.get(account, record.kind, record.bucketSize, record.startTime, record.resourceId) as
          | StoredBucket
          | undefined);
      current.set(key, writer.write(record, old));
      // The bucket no longer holds what its digest says was reported for it.
      const scope = { account, kind: record.kind, bucketSize: record.bucketSize };
      dropDigest(database, scope, record.startTime);
    }
    writer.finish();
  });
  return { written: writer.written, unchanged: records.length - writer.written };
}

/** One bucket of a route's answer: its records, made only when needed, and the digest of their text. */
export interface ReportedBucket {
  startTime: number;
  /** textDigest (billing-digest.ts) of the records as the route sent them; null when not read as text. */
  digest: number | null;
  /** The bucket's records, checked: called at most once, inside the write's transaction (it may throw). */
  records(): readonly BillingRecordInput[];
}

/**
 * Makes the stored buckets of `window` exactly `buckets` (each start once, all of the window's
 * kind and bucket size), in one transaction: writes what is new or changed and deletes stored
 * buckets the API no longer reports (billing is sparse, so a bucket whose money was withdrawn
 * simply stops appearing; keeping its old amount would count money that is not owed). Most of a
 * re-read window is unchanged: a bucket whose text has the digest stored with it
 * (billing-digest.ts) is skipped without making its records or reading its rows back; any other
 * is compared row by row, and only what differs is written.
 */
export async function replaceBillingBuckets(
  database: Database,
  window: BillingWindow,
  buckets: readonly ReportedBucket[],
  fetchedAt: number,
): Promise<{ written: number; deleted: number }> {
  const { kind, bucketSize, from, to } = window;
  const writer = new BucketWriter(database, window.account, fetchedAt);
  database.transaction(() => {
    const stored = new Set(storedStartsIn(database, window, from, to));
    const digests = digestsIn(database, window, from, to);
    const reported = new Set<number>();
    for (const bucket of buckets) {
      const { startTime, digest } = bucket;
      reported.add(startTime);
      const has = stored.has(startTime);
      // The digest alone never deletes or keeps a row: a bucket without stored rows is written.
      if (has && digest !== null && digests.get(startTime) === digest) continue;
      const records = bucket.records();
      writer.replaceBucket(kind, bucketSize, startTime, records, has);
      // A digest says the rows equal the text it hashed: rows written from records alone have none.
      if (digest !== null) writeDigest(database, window, startTime, digest);
      else if (digests.has(startTime)) dropDigest(database, window, startTime);
    }
    for (const startTime of stored) {
      if (!reported.has(startTime)) writer.removeBucket(kind, bucketSize, startTime);
    }
    for (const startTime of digests.keys()) {
      if (!reported.has(startTime)) dropDigest(database, window, startTime);
    }
    writer.finish();
  });
  return { written: writer.written, deleted: writer.deleted };
}

/** Buckets whose startTime lies in [from, to). */
export type BillingWindow = BillingScope & { from: number; to: number };

export type BackfillKey = BillingScope;
export type BackfillProgress = typeof billingBackfill.$inferSelect;

export function getBackfillSync(database: Database, key: BackfillKey): BackfillProgress | undefined {
  return backfillStatements(database).read.get(key.account, key.kind, key.bucketSize) as BackfillProgress | undefined;
}

export const getBackfill = outsideTransaction(getBackfillSync);

/**
 * Starts a backfill that walks back from `from` to `targetStartTime`, or returns the one already
 * under way (after a crash) unchanged, so the caller resumes at its cursor.
 */
export async function beginBackfill(
  database: Database,
  key: BackfillKey,
  range: { from: number; targetStartTime: number },
): Promise<BackfillProgress> {
  return database.transaction(() => {
    backfillStatements(database).begin.run(key.account, key.kind, key.bucketSize, range.from, range.targetStartTime);
    const progress = getBackfillSync(database, key);
    if (!progress) throw new Error(`begin billing backfill ${key.kind}/${key.bucketSize}: row vanished`);
    return progress;
  });
}

/**
 * Records that everything from `cursorStartTime` on is stored, and with `doneAt` that the
 * backfill is complete, in one transaction. The cursor only moves back, so replaying an older
 * step is harmless.
 */
export async function advanceBackfill(
  database: Database,
  key: BackfillKey,
  cursorStartTime: number,
  doneAt?: number,
): Promise<void> {
  const s = backfillStatements(database);
  database.transaction(() => {
    s.advance.run(cursorStartTime, key.account, key.kind, key.bucketSize);
    if (doneAt !== undefined) s.complete.run(doneAt, key.account, key.kind, key.bucketSize);
  });
}

export async function completeBackfill(database: Database, key: BackfillKey, doneAt: number): Promise<void> {
  backfillStatements(database).complete.run(doneAt, key.account, key.kind, key.bucketSize);
}

// Prepared once: a backfill moves its cursor once per chunk, and drizzle builds a statement anew each time.
const backfillStatements = perDatabase(({ sqlite }) => ({
  read: sqlite.prepare(
    `SELECT account, kind, bucket_size AS bucketSize, cursor_start_time AS cursorStartTime,
       target_start_time AS targetStartTime, done_at AS doneAt
     FROM billing_backfill WHERE account = ? AND kind = ? AND bucket_size = ?`,
  ),
  begin: sqlite.prepare(
    `INSERT INTO billing_backfill (account, kind, bucket_size, cursor_start_time, target_start_time, done_at)
     VALUES (?, ?, ?, ?, ?, NULL) ON CONFLICT DO NOTHING`,
  ),
  advance: sqlite.prepare(
    `UPDATE billing_backfill SET cursor_start_time = min(cursor_start_time, ?)
     WHERE account = ? AND kind = ? AND bucket_size = ?`,
  ),
  complete: sqlite.prepare(
    `UPDATE billing_backfill SET done_at = coalesce(done_at, ?)
     WHERE account = ? AND kind = ? AND bucket_size = ?`,
  ),
}));
