import { hash as oneShotHash } from 'node:crypto';
import type { Database } from './open.js';
import type { BillingKind, BucketSize } from './schema.js';
import { perDatabase } from './statements.js';

/**
 * The digests of billing_digests (tables/billing.ts): what a route reported for one bucket, as
 * text made of its checked records (billing-store.ts), hashed: a re-read whose bucket hashes to
 * its stored digest is not compared or written row by row. 53 bits of SHA-1, so SQLite stores it
 * as an integer: a change that left the digest equal would need a 53-bit collision between two
 * reports of the same bucket.
 */
export function textDigest(text: string): number {
  const hash = oneShotHash('sha1', text, 'buffer');
  return hash.readUIntBE(0, 6) * 32 + ((hash[6] as number) >>> 3);
}

/** One route's buckets of one size. */
export type BillingScope = { account: string; kind: BillingKind; bucketSize: BucketSize };

const statements = perDatabase(({ sqlite }) => ({
  window: sqlite
    .prepare(
      `SELECT start_time, digest FROM billing_digests
       WHERE account = ? AND kind = ? AND bucket_size = ? AND start_time >= ? AND start_time < ?`,
    )
    .raw(),
  write: sqlite.prepare(
    `INSERT INTO billing_digests (account, kind, bucket_size, start_time, digest) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT DO UPDATE SET digest = excluded.digest`,
  ),
  drop: sqlite.prepare(
    'DELETE FROM billing_digests WHERE account = ? AND kind = ? AND bucket_size = ? AND start_time = ?',
  ),
  // One seek of the table's key per stored bucket start, rather than a walk over every row.
  nextStart: sqlite
    .prepare(
      `SELECT start_time FROM billing_records
       WHERE account = ? AND kind = ? AND bucket_size = ? AND start_time >= ? AND start_time < ?
       ORDER BY start_time LIMIT 1`,
    )
    .pluck(),
}));

/** The stored digests of a window's buckets, by start time. */
export function digestsIn(database: Database, scope: BillingScope, from: number, to: number): Map<number, number> {
  const rows = statements(database).window.all(scope.account, scope.kind, scope.bucketSize, from, to) as Array<
    [number, number]
  >;
  return new Map(rows);
}

export function writeDigest(database: Database, scope: BillingScope, startTime: number, digest: number): void {
  statements(database).write.run(scope.account, scope.kind, scope.bucketSize, startTime, digest);
}

/** Forgets a bucket's digest: its rows were written otherwise, or are gone. */
export function dropDigest(database: Database, scope: BillingScope, startTime: number): void {
  statements(database).drop.run(scope.account, scope.kind, scope.bucketSize, startTime);
}

/** The start times in [from, to) with stored buckets, oldest first. */
export function storedStartsIn(database: Database, scope: BillingScope, from: number, to: number): number[] {
  const { nextStart } = statements(database);
  const starts: number[] = [];
  for (let at = from; at < to; ) {
    const start = nextStart.get(scope.account, scope.kind, scope.bucketSize, at, to) as number | undefined;
    if (start === undefined) break;
    starts.push(start);
    at = start + 1;
  }
  return starts;
}
