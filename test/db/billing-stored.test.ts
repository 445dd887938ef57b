import { describe, expect, it } from 'vitest';
import {
  type BillingRecordInput,
  type BillingWindow,
  type ReportedBucket,
  replaceBillingBuckets,
} from '../../src/db/billing.js';
import { textDigest } from '../../src/db/billing-digest.js';
import type { Database } from '../../src/db/open.js';
import { replaceBillingWindow } from '../helpers/billing-reads.js';
import { HOUR, podBucket, T0, useTempDatabases } from './support.js';

// A re-read of a billing window against what is stored: whichever connection wrote last, whatever
// rolled back, and whichever writer (by text or by records) wrote the route.

const temp = useTempDatabases();

function windowOf(fromHour: number, toHour: number): BillingWindow {
  return { account: 'main', kind: 'pods', bucketSize: 'hour', from: T0 + fromHour * HOUR, to: T0 + toHour * HOUR };
}

/** Two Pods for each of `hours`. */
function report(hours: number[], scale = 1): BillingRecordInput[] {
  return hours.flatMap((hour) => [podBucket('pod-a', hour, 0.5 * scale), podBucket('pod-b', hour, 1.25 * scale)]);
}

/** Stores records as a re-read does: by bucket, each with a digest of its records; `failing` ends with a bucket that throws. */
async function store(database: Database, window: BillingWindow, records: BillingRecordInput[], failing?: string) {
  const buckets = new Map<number, BillingRecordInput[]>();
  for (const record of records) buckets.set(record.startTime, [...(buckets.get(record.startTime) ?? []), record]);
  const reported = [...buckets].map(
    ([startTime, bucket]): ReportedBucket => ({
      startTime,
      digest: textDigest(JSON.stringify(bucket)),
      records: () => bucket,
    }),
  );
  if (failing !== undefined) {
    const fail = (): never => {
      throw new Error(failing);
    };
    reported.push({ startTime: window.to - HOUR, digest: null, records: fail });
  }
  return await replaceBillingBuckets(database, window, reported, T0 + 50 * HOUR);
}

function stored(database: Database) {
  return database.sqlite
    .prepare('SELECT resource_id, start_time, total_amount FROM billing_records ORDER BY start_time, resource_id')
    .raw()
    .all()
    .map((row) => {
      const [id, start, amount] = row as [string, number, number];
      return `${id}@${(start - T0) / HOUR}=${amount.toFixed(2)}`;
    });
}

function deleteHour(database: Database, hour: number) {
  database.sqlite.prepare('DELETE FROM billing_records WHERE start_time = ?').run(T0 + hour * HOUR);
}

describe('a billing window written over what is stored', () => {
  it('reads the change another connection committed', async () => {
    const database = temp.open();
    const other = temp.open();
    const window = windowOf(0, 3);
    await store(database, window, report([0, 1, 2]));
    deleteHour(other, 1);
    expect(await store(database, window, report([0, 1, 2]))).toEqual({ written: 2, deleted: 0 });
    expect(await stored(database)).toEqual(expectedHours([0, 1, 2]));
  });

  it('leaves nothing of a write that rolls back', async () => {
    const database = temp.open();
    const window = windowOf(0, 3);
    await store(database, window, report([0, 1, 2]));
    const doubled = report([0, 1, 2], 2);
    await expect(store(database, window, doubled, 'a record the schema rejects')).rejects.toThrow('schema rejects');
    expect(await stored(database)).toEqual(expectedHours([0, 1, 2]));
    // What is on disk is read again: every bucket differs from the report, and is written.
    expect(await store(database, window, doubled)).toEqual({ written: 6, deleted: 0 });
    expect(await stored(database)).toEqual(expectedHours([0, 1, 2], 2));
  });

  it('reads what a write of records without their text (another writer of the route) left', async () => {
    const database = temp.open();
    const window = windowOf(0, 3);
    await store(database, window, report([0, 1, 2]));
    // The records path keeps what it left too, with no digests: the next re-read compares and rewrites.
    await replaceBillingWindow(database, window, report([0, 1, 2], 3), T0 + 51 * HOUR);
    expect(await store(database, window, report([0, 1, 2]))).toEqual({ written: 6, deleted: 0 });
    expect(await stored(database)).toEqual(expectedHours([0, 1, 2]));
  });

  it('deletes withdrawn buckets on both sides of a moved window', async () => {
    const database = temp.open();
    // Hour 4 stored by one write, hours 0-3 by the next, which is what is kept.
    await store(database, windowOf(4, 5), report([4]));
    await store(database, windowOf(0, 4), report([0, 1, 2, 3]));
    // The window moves an hour: hour 1 (kept) and hour 4 (read from disk) are no longer reported.
    expect(await store(database, windowOf(1, 5), report([2, 3]))).toEqual({ written: 0, deleted: 4 });
    expect(await stored(database)).toEqual(expectedHours([0, 2, 3]));
    // And moved back over what was kept and what is before it: hour 0 read from disk, hour 1 new.
    expect(await store(database, windowOf(0, 3), report([1, 2]))).toEqual({ written: 2, deleted: 2 });
    expect(await stored(database)).toEqual(expectedHours([1, 2, 3]));
  });
});

function expectedHours(hours: number[], scale = 1): string[] {
  return report(hours, scale).map(
    (record) => `${record.resourceId}@${(record.startTime - T0) / HOUR}=${record.totalAmount.toFixed(2)}`,
  );
}
