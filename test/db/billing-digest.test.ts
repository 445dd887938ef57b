import { describe, expect, it } from 'vitest';
import {
  type BillingRecordInput,
  type ReportedBucket,
  replaceBillingBuckets,
  upsertBillingRecords,
} from '../../src/db/billing.js';
import { textDigest } from '../../src/db/billing-digest.js';
import type { Database } from '../../src/db/open.js';
import { replaceBillingWindow, sumBillingByResource } from '../helpers/billing-reads.js';
import { DAY, HOUR, podBucket, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();

const window = { account: 'main', kind: 'pods', bucketSize: 'hour', from: T0, to: T0 + DAY } as const;

/** Four hours of three Pods. */
function report(change: (record: BillingRecordInput) => BillingRecordInput = (record) => record) {
  const records: BillingRecordInput[] = [];
  for (let hour = 0; hour < 4; hour++) {
    for (const [pod, gpu] of [
      ['pod-a', 0.5],
      ['pod-b', 1.25],
      ['pod-c', 0.03],
    ] as const) {
      records.push(change(podBucket(pod, hour, gpu + hour / 100)));
    }
  }
  return records;
}

function rows(database: Database) {
  return database.sqlite
    .prepare('SELECT resource_id, start_time, total_amount, amounts, fetched_at FROM billing_records ORDER BY 2, 1')
    .raw()
    .all() as Array<[string, number, number, string, number]>;
}

function digests(database: Database) {
  return database.sqlite.prepare('SELECT start_time, digest FROM billing_digests ORDER BY 1').raw().all() as Array<
    [number, number]
  >;
}

function days(database: Database) {
  return database.sqlite.prepare('SELECT * FROM billing_days ORDER BY day_start, resource_id').all();
}

/** A record's text as the API would send it. */
function textOf(record: BillingRecordInput): string {
  const { startTime, endTime, resourceId, totalAmount, amounts } = record;
  const iso = (ms: number) => new Date(ms).toISOString();
  return JSON.stringify({
    startTime: iso(startTime),
    endTime: iso(endTime),
    podId: resourceId,
    ...amounts,
    totalAmount,
  });
}

function digestOf(records: BillingRecordInput[]): number {
  return textDigest(records.map(textOf).join(','));
}

/** Buckets whose records were made, by start time, across every `store` of a test. */
let made: number[] = [];

/** Stores a report as a re-read does: each bucket with the digest of its text, its records made on demand. */
/** `failing` ends the report with a bucket that throws when its records are made. */
async function store(database: Database, records: BillingRecordInput[], fetchedAt: number, failing?: string) {
  const buckets = new Map<number, BillingRecordInput[]>();
  for (const record of records) buckets.set(record.startTime, [...(buckets.get(record.startTime) ?? []), record]);
  const reported = [...buckets].map(
    ([startTime, bucket]): ReportedBucket => ({
      startTime,
      digest: digestOf(bucket),
      records: () => {
        made.push(startTime);
        return bucket;
      },
    }),
  );
  if (failing !== undefined) {
    const fail = (): never => {
      throw new Error(failing);
    };
    reported.push({ startTime: window.to - HOUR, digest: null, records: fail });
  }
  return await replaceBillingBuckets(database, window, reported, fetchedAt);
}

describe('billing digests', () => {
  it('change with any stored field of any record, and with the records of a bucket', () => {
    const base = report().slice(0, 3);
    const seen = new Set([digestOf(base)]);
    const variants: BillingRecordInput[][] = [
      base.map((r, i) => (i === 1 ? { ...r, resourceId: 'pod-B' } : r)),
      base.map((r, i) => (i === 1 ? { ...r, endTime: r.endTime - 1 } : r)),
      base.map((r, i) => (i === 2 ? { ...r, totalAmount: r.totalAmount + 1e-12 } : r)),
      base.map((r, i) => (i === 0 ? { ...r, amounts: { ...r.amounts, gpuAmount: 0.5000000001 } } : r)),
      base.map((r, i) => (i === 0 ? { ...r, amounts: { ...r.amounts, memoryAmount: 0 } } : r)),
      base.map((r, i) => {
        if (i !== 0) return r;
        const { cpuAmount: _, ...amounts } = r.amounts;
        return { ...r, amounts };
      }),
      base.slice(0, 2),
      [...base, base[0] as BillingRecordInput],
      [base[1], base[0], base[2]] as BillingRecordInput[],
    ];
    for (const variant of variants) seen.add(digestOf(variant));
    expect(seen.size).toBe(variants.length + 1);
    expect(digestOf(report().slice(0, 3))).toBe(digestOf(base));
    expect(Number.isSafeInteger(digestOf(base))).toBe(true);
  });

  it('a re-read that reports what is stored is skipped bucket by bucket, without making its records', async () => {
    made = [];
    const database = temp.open();
    expect(await store(database, report(), T0 + 5 * HOUR)).toEqual({ written: 12, deleted: 0 });
    expect(digests(database)).toHaveLength(4);
    // Changed behind the store's back (as only a bug could): a digest hit does not look.
    database.sqlite.prepare("UPDATE billing_records SET fetched_at = 1 WHERE resource_id = 'pod-a'").run();
    const before = rows(database);
    expect(made).toEqual([T0, T0 + HOUR, T0 + 2 * HOUR, T0 + 3 * HOUR]);
    expect(await store(database, report(), T0 + 6 * HOUR)).toEqual({ written: 0, deleted: 0 });
    expect(rows(database)).toEqual(before);
    expect(made).toHaveLength(4);
    // One bucket's text changes (a record's amount): only that bucket is made and compared.
    const corrected = report((r) =>
      r.resourceId === 'pod-b' && r.startTime === T0 + HOUR ? podBucket('pod-b', 1, 2) : r,
    );
    expect(await store(database, corrected, T0 + 7 * HOUR)).toEqual({ written: 1, deleted: 0 });
    expect(made.slice(4)).toEqual([T0 + HOUR]);
  });

  it('records written without their text write no digest, and drop the one stored', async () => {
    made = [];
    const database = temp.open();
    await store(database, report(), T0 + 5 * HOUR);
    const reported = rows(database);
    expect(await replaceBillingWindow(database, window, report(), T0 + 6 * HOUR)).toEqual({ written: 0, deleted: 0 });
    expect(digests(database)).toEqual([]);
    // The next re-read as text compares every bucket row by row, finds it equal, and digests it again.
    expect(await store(database, report(), T0 + 7 * HOUR)).toEqual({ written: 0, deleted: 0 });
    expect(made).toHaveLength(8);
    expect(digests(database)).toHaveLength(4);
    expect(rows(database)).toEqual(reported);
  });

  it('a bucket written otherwise loses its digest, so the next re-read compares it row by row and restores it', async () => {
    const database = temp.open();
    await store(database, report(), T0 + 5 * HOUR);
    const reported = rows(database);
    await upsertBillingRecords(database, 'main', [podBucket('pod-b', 2, 9.99)], T0 + 5 * HOUR);
    expect(digests(database).map(([start]) => start)).toEqual([T0, T0 + HOUR, T0 + 3 * HOUR]);
    expect(await store(database, report(), T0 + 5 * HOUR)).toEqual({ written: 1, deleted: 0 });
    expect(rows(database)).toEqual(reported);
    expect(digests(database)).toHaveLength(4);
  });

  it('a digest miss with a changed amount writes only that record, then hits again', async () => {
    const database = temp.open();
    await store(database, report(), T0 + 5 * HOUR);
    const stored = digests(database);
    const corrected = report((r) =>
      r.resourceId === 'pod-c' && r.startTime === T0 + 3 * HOUR
        ? { ...r, totalAmount: 0.07, amounts: { ...r.amounts, totalAmount: 0.07, gpuAmount: 0.06 } }
        : r,
    );
    expect(await store(database, corrected, T0 + 6 * HOUR)).toEqual({ written: 1, deleted: 0 });
    const after = digests(database);
    expect(after.slice(0, 3)).toEqual(stored.slice(0, 3));
    expect(after[3]?.[1]).not.toBe(stored[3]?.[1]);
    expect(
      (await sumBillingByResource(database, window)).find((r) => r.resourceId === 'pod-c')?.totalAmount,
    ).toBeCloseTo(0.04 + 0.05 + 0.06 + 0.07, 10);
    const amounts = database.sqlite
      .prepare("SELECT amounts, fetched_at FROM billing_records WHERE resource_id = 'pod-c' AND start_time = ?")
      .get(T0 + 3 * HOUR);
    expect(amounts).toEqual({
      amounts: JSON.stringify({ totalAmount: 0.07, gpuAmount: 0.06, cpuAmount: 0, diskAmount: 0.01 }),
      fetched_at: T0 + 6 * HOUR,
    });
    expect(await store(database, corrected, T0 + 7 * HOUR)).toEqual({ written: 0, deleted: 0 });
  });

  it('deletes a withdrawn bucket with its digest and its day, and a record withdrawn from a bucket', async () => {
    const database = temp.open();
    await store(database, report(), T0 + 5 * HOUR);
    const withdrawn = report().filter(
      (r) => r.startTime !== T0 + 2 * HOUR && !(r.resourceId === 'pod-a' && r.startTime === T0 + HOUR),
    );
    expect(await store(database, withdrawn, T0 + 6 * HOUR)).toEqual({ written: 0, deleted: 4 });
    expect(rows(database).map(([id, start]) => `${id}@${(start - T0) / HOUR}`)).toEqual([
      'pod-a@0',
      'pod-b@0',
      'pod-c@0',
      'pod-b@1',
      'pod-c@1',
      'pod-a@3',
      'pod-b@3',
      'pod-c@3',
    ]);
    expect(digests(database).map(([start]) => (start - T0) / HOUR)).toEqual([0, 1, 3]);
    // billing_days as if only what is left had ever been stored (a day summed again may differ in the last bit).
    const fresh = temp.open('fresh.db');
    await store(fresh, withdrawn, T0 + 5 * HOUR);
    const comparable = (database: Database) =>
      days(database).map((d) => {
        const day = d as { total_amount: number; covered_through: number };
        return { ...day, total_amount: day.total_amount.toFixed(12), covered_through: 0 };
      });
    expect(comparable(database)).toEqual(comparable(fresh));
    // Withdrawn again from an empty window: nothing stored, no digest left.
    expect(await store(database, [], T0 + 7 * HOUR)).toEqual({ written: 0, deleted: 8 });
    expect(digests(database)).toEqual([]);
    expect(days(database)).toEqual([]);
  });

  it('rolled back with its transaction, leaves no digest behind: the same report is stored again in full', async () => {
    const database = temp.open();
    await store(database, report(), T0 + 5 * HOUR);
    const before = { rows: rows(database), digests: digests(database), days: days(database) };
    const doubled = report((r) => ({ ...r, totalAmount: r.totalAmount * 2 }));
    await expect(store(database, doubled, T0 + 6 * HOUR, 'killed mid-slice')).rejects.toThrow('killed mid-slice');
    expect({ rows: rows(database), digests: digests(database), days: days(database) }).toEqual(before);
    expect(await store(database, doubled, T0 + 6 * HOUR)).toEqual({ written: 12, deleted: 0 });
    const sums = [0.51 + 0.52 + 0.53 + 0.54, 1.26 + 1.27 + 1.28 + 1.29, 0.04 + 0.05 + 0.06 + 0.07];
    expect((await sumBillingByResource(database, window)).map((r) => r.totalAmount)).toEqual(
      sums.map((sum) => expect.closeTo(sum * 2, 10)),
    );
  });
});
