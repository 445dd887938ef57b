import { hash as oneShotHash } from 'node:crypto';
import type { Database } from './open.js';
import type { BillingKind, BucketSize } from './schema.js';
import { dataVersion, perDatabase } from './statements.js';

/**
 * The digests of billing_digests (tables/billing.ts): what a route reported for one bucket, as
 * the text of its records in the order they came, joined by commas (exactly as they stood in
 * the answer's array), hashed before any of it is parsed: a re-read whose bucket hashes to its
 * stored digest is skipped without parsing, checking or comparing a record (a 15-minute re-read
 * of `large` reports ~110,000 records, nearly all unchanged). 53 bits of SHA-1, so SQLite stores
 * it as an integer: a change that left the digest equal would need a 53-bit collision between
 * two reports of the same bucket. Migration 0017 dropped the digests of the decoded records that
 * came before, so no digest of one kind is ever compared with one of the other.
 */
export function textDigest(text: string): number {
  // One call, no Hash object: a re-read hashes every bucket of its window (~1,000 an hour for a
  // small team), and making the object was half the cost of hashing a bucket's few hundred bytes.
  const hash = oneShotHash('sha1', text, 'buffer');
  return hash.readUIntBE(0, 6) * 32 + ((hash[6] as number) >>> 3);
}

/** One route's buckets of one size: where the digests of a billing write live. */
export interface DigestScope {
  account: string;
  kind: BillingKind;
  bucketSize: BucketSize;
}

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
export function digestsIn(database: Database, scope: DigestScope, from: number, to: number): Map<number, number> {
  const rows = statements(database).window.all(scope.account, scope.kind, scope.bucketSize, from, to) as Array<
    [number, number]
  >;
  return new Map(rows);
}

export function writeDigest(database: Database, scope: DigestScope, startTime: number, digest: number): void {
  statements(database).write.run(scope.account, scope.kind, scope.bucketSize, startTime, digest);
}

/** Forgets a bucket's digest: its rows were written otherwise, or are gone. */
export function dropDigest(database: Database, scope: DigestScope, startTime: number): void {
  statements(database).drop.run(scope.account, scope.kind, scope.bucketSize, startTime);
}

/** The start times in [from, to) with stored buckets, oldest first. */
export function storedStartsIn(database: Database, scope: DigestScope, from: number, to: number): number[] {
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

/** What a window's buckets hold on disk: the starts with rows, and the digests stored (a digest may lack rows). */
export interface StoredBuckets {
  starts: ReadonlySet<number>;
  digests: ReadonlyMap<number, number>;
}

/**
 * What replaceBillingBuckets left on disk for the last window it wrote of each route, so that the
 * next re-read (every 15 minutes, over nearly the same window) reads from disk only the part this
 * does not cover: a seek per stored bucket and a range read were a third of a small team's
 * steady billing store. Exact, never stale: kept only once the transaction that wrote it has
 * committed (none is kept by a write inside another transaction, which may still roll back),
 * dropped by every other writer of billing_records or billing_digests (forgetStoredBuckets), and
 * all dropped when another connection commits (data_version, read inside the write's transaction,
 * where it also pins the snapshot the write reads: a write never runs inside oneDataVersion, which
 * is for stretches that only read). A restart starts with nothing kept.
 */
const kept = perDatabase(() => ({
  seen: Number.NaN,
  windows: new Map<string, { from: number; to: number; stored: StoredBuckets }>(),
}));

function scopeKey(scope: DigestScope): string {
  return `${scope.account}\u0000${scope.kind}\u0000${scope.bucketSize}`;
}

/**
 * The stored starts and digests of [from, to), as storedStartsIn and digestsIn read them, from
 * what is kept where it covers the window. Call inside the transaction that writes the window.
 */
export function storedBucketsIn(database: Database, scope: DigestScope, from: number, to: number): StoredBuckets {
  const cache = kept(database);
  const version = dataVersion(database);
  if (version !== cache.seen) {
    cache.seen = version;
    cache.windows.clear();
  }
  const last = cache.windows.get(scopeKey(scope));
  if (last !== undefined && last.from === from && last.to === to) return last.stored;
  if (last === undefined || last.to <= from || to <= last.from) {
    return {
      starts: new Set(storedStartsIn(database, scope, from, to)),
      digests: digestsIn(database, scope, from, to),
    };
  }
  // Oldest first, as storedStartsIn lists them: the part before what is kept, the kept part, the part after.
  const starts = new Set<number>();
  const digests = new Map<number, number>();
  const read = (readFrom: number, readTo: number) => {
    for (const start of storedStartsIn(database, scope, readFrom, readTo)) starts.add(start);
    for (const [start, digest] of digestsIn(database, scope, readFrom, readTo)) digests.set(start, digest);
  };
  if (from < last.from) read(from, last.from);
  for (const start of last.stored.starts) if (start >= from && start < to) starts.add(start);
  for (const [start, digest] of last.stored.digests) if (start >= from && start < to) digests.set(start, digest);
  if (last.to < to) read(last.to, to);
  return { starts, digests };
}

/** Keeps what a committed write left on disk for [from, to) (starts oldest first), for the next storedBucketsIn. */
export function keepStoredBuckets(
  database: Database,
  scope: DigestScope,
  from: number,
  to: number,
  stored: StoredBuckets,
): void {
  // `seen` is the version read inside the transaction just committed: this connection's own commit does not move it.
  kept(database).windows.set(scopeKey(scope), { from, to, stored });
}

/** Drops what is kept of a route's buckets: they were written otherwise, or by a transaction not yet committed. */
export function forgetStoredBuckets(database: Database, scope: DigestScope): void {
  kept(database).windows.delete(scopeKey(scope));
}
