import type { Database } from './open.js';
import type { BillingKind, BucketSize } from './schema.js';
import { perDatabase } from './statements.js';

/** What a digest reads of a record: every field of it that is stored. */
interface DigestedRecord {
  resourceId: string;
  endTime: number;
  totalAmount: number;
  amounts: Record<string, number>;
}

/**
 * The digests of billing_digests (tables/billing.ts): what a route reported for one bucket,
 * hashed from the decoded records without building a string per record (the exact comparison
 * it saves costs a JSON.stringify of every record and a read of every stored row). Two
 * independent 32-bit multiply-xor hashes over every field that is stored (resourceId, endTime,
 * totalAmount, each amount's name and value as float64 bits) and the record count, kept to 53
 * bits so SQLite stores them as an integer. A change that left the digest equal would need a
 * 53-bit collision between two reports of the same bucket.
 */
export class BucketDigest {
  private a = 0x811c9dc5;
  private b = 0x9747b28c;
  private count = 0;

  add(record: DigestedRecord): void {
    this.text(record.resourceId);
    this.number(record.endTime);
    this.number(record.totalAmount);
    const amounts = record.amounts;
    for (const field in amounts) {
      this.word(fieldHash(field));
      this.number(amounts[field] as number);
    }
    // Ends the record, so fields cannot slide from one record into the next.
    this.word(0x5bd1e995);
    this.count++;
  }

  value(): number {
    this.word(this.count);
    const a = fmix(this.a);
    const b = fmix(this.b);
    return (a & 0x1fffff) * 0x100000000 + b;
  }

  private text(value: string): void {
    for (let i = 0; i < value.length; i++) this.word(value.charCodeAt(i));
    this.word(value.length | 0x40000000);
  }

  private number(value: number): void {
    float[0] = value;
    this.word(bits[0] as number);
    this.word(bits[1] as number);
  }

  private word(value: number): void {
    this.a = Math.imul(this.a ^ value, 0x01000193);
    this.b = Math.imul((this.b + value) | 0, 0x5bd1e995) ^ (this.b >>> 15);
  }
}

const float = new Float64Array(1);
const bits = new Uint32Array(float.buffer);

/** Amount field names repeat in every record: their hash is computed once. */
const fieldHashes = new Map<string, number>();
function fieldHash(field: string): number {
  let hash = fieldHashes.get(field);
  if (hash === undefined) {
    hash = 0x811c9dc5;
    for (let i = 0; i < field.length; i++) hash = Math.imul(hash ^ field.charCodeAt(i), 0x01000193);
    hash = fmix(hash ^ field.length);
    if (fieldHashes.size < 1_000) fieldHashes.set(field, hash);
  }
  return hash;
}

/** murmur3's finaliser: every input bit moves every output bit. */
function fmix(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
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
