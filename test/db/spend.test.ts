import { describe, expect, it } from 'vitest';
import { type BillingRecordInput, upsertBillingRecords } from '../../src/db/billing.js';
import type { Database } from '../../src/db/open.js';
import { type SpendQuery, spendByResource, spendSince } from '../../src/db/spend.js';
import { replaceBillingWindow } from '../helpers/billing-reads.js';
import { DAY, HOUR, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();

function bucket(resourceId: string, hour: number, totalAmount: number): BillingRecordInput {
  const startTime = T0 + hour * HOUR;
  return {
    kind: 'pods',
    resourceId,
    bucketSize: 'hour',
    startTime,
    endTime: startTime + HOUR,
    totalAmount,
    amounts: { totalAmount },
  };
}

/** Ten days of hourly buckets of three Pods, amounts varying by hour so every bucket counts. */
function tenDays(): BillingRecordInput[] {
  const records: BillingRecordInput[] = [];
  for (let hour = 0; hour < 240; hour++) {
    records.push(bucket('pod-a', hour, 1 + (hour % 7) / 10));
    if (hour % 3 !== 0) records.push(bucket('pod-b', hour, 0.25 * (1 + (hour % 5))));
    if (hour >= 100 && hour < 150) records.push(bucket('pod-c', hour, 3.5));
  }
  return records;
}

/** The same figures straight from every stored bucket: what the rollup must agree with. */
function fromBuckets(database: Database, q: SpendQuery) {
  return database.sqlite
    .prepare(
      `SELECT resource_id AS resourceId,
         total(CASE WHEN start_time >= @periodStart THEN total_amount END) AS periodAmount,
         total(CASE WHEN start_time >= @windowStart THEN total_amount END) AS windowAmount,
         max(min(end_time, fetched_at)) AS coveredThrough
       FROM billing_records WHERE account = @account AND kind = @kind AND bucket_size = @bucketSize
         AND start_time >= min(@periodStart, @windowStart) AND start_time < @periodEnd
       GROUP BY resource_id ORDER BY resource_id`,
    )
    .all(q);
}

const query = (periodStart: number, periodEnd: number, windowStart: number): SpendQuery => ({
  account: 'main',
  kind: 'pods',
  bucketSize: 'hour',
  periodStart,
  periodEnd,
  windowStart,
});

// Aligned to UTC days, cut by a time zone's midnight (+05:30), a window inside the period and one before it.
const queries = [
  query(T0, T0 + 30 * DAY, T0 + 8 * DAY + 13 * HOUR),
  query(T0 + 2 * DAY - 5.5 * HOUR, T0 + 9 * DAY - 5.5 * HOUR, T0 + 7 * DAY + 3 * HOUR),
  query(T0 + 4 * DAY, T0 + 6 * DAY + 7 * HOUR, T0 + 3 * DAY + 22 * HOUR),
  query(T0 + 3 * DAY + HOUR, T0 + 3 * DAY + 9 * HOUR, T0 + 3 * DAY + 2 * HOUR),
  query(T0 + 5 * DAY + 10 * HOUR, T0 + 9 * DAY, T0 + 5 * DAY + 3 * HOUR),
  query(T0 + 6 * DAY, T0 + 8 * DAY, T0 + 2 * DAY),
  // Weeks whose days run past the stored ones: the last stored day alone, and none.
  query(T0 + 9 * DAY, T0 + 16 * DAY, T0 + 8 * DAY + 20 * HOUR),
  query(T0 + 12 * DAY, T0 + 19 * DAY, T0 + 11 * DAY),
];

async function expectAgreement(database: Database) {
  for (const q of queries) {
    const rolled = await spendByResource(database, q);
    const raw = fromBuckets(database, q) as Array<Record<string, number>>;
    expect(rolled.map((row) => row.resourceId)).toEqual(raw.map((row) => row.resourceId));
    rolled.forEach((row, i) => {
      expect(row.periodAmount).toBeCloseTo(raw[i]?.periodAmount as number, 9);
      expect(row.windowAmount).toBeCloseTo(raw[i]?.windowAmount as number, 9);
      expect(row.coveredThrough).toBe(raw[i]?.coveredThrough);
    });
  }
}

describe('spend from the daily billing rollup', () => {
  it('agrees with a sum over every stored bucket, for periods and windows cut anywhere in a day', async () => {
    const database = temp.open();
    await upsertBillingRecords(database, 'main', tenDays(), T0 + 240 * HOUR);
    expect((await spendByResource(database, queries[0] as SpendQuery)).length).toBe(3);
    await expectAgreement(database);
  });

  it('follows a corrected bucket and a withdrawn one in the same transaction', async () => {
    const database = temp.open();
    await upsertBillingRecords(database, 'main', tenDays(), T0 + 240 * HOUR);
    const before = await spendByResource(database, queries[0] as SpendQuery);
    await upsertBillingRecords(database, 'main', [bucket('pod-a', 200, 42)], T0 + 241 * HOUR);
    const after = await spendByResource(database, queries[0] as SpendQuery);
    expect((after[0]?.periodAmount ?? 0) - (before[0]?.periodAmount ?? 0)).toBeCloseTo(42 - (1 + (200 % 7) / 10), 9);
    // The API stops reporting pod-c's buckets of its fifth day: they are owed no more.
    const window = { startMs: T0 + 4 * DAY, endMs: T0 + 5 * DAY };
    const kept = tenDays().filter(
      (r) => r.resourceId !== 'pod-c' && r.startTime >= window.startMs && r.startTime < window.endMs,
    );
    const stored = {
      account: 'main',
      kind: 'pods',
      bucketSize: 'hour',
      from: window.startMs,
      to: window.endMs,
    } as const;
    await replaceBillingWindow(database, stored, kept, T0 + 242 * HOUR);
    await expectAgreement(database);
    const withdrawn = await spendByResource(database, query(T0 + 4 * DAY, T0 + 5 * DAY, T0 + 4 * DAY));
    expect(withdrawn.map((row) => row.resourceId)).toEqual(['pod-a', 'pod-b']);
  });

  it('counts what was billed since a start up to the bucket holding now, and follows billing writes', async () => {
    const database = temp.open();
    await upsertBillingRecords(database, 'main', tenDays(), T0 + 240 * HOUR);
    const read = (now: number) =>
      spendSince(database, { account: 'main', kind: 'pods', bucketSize: 'hour', windowStart: T0 + 110 * HOUR, now });
    const figures = async (now: number) => [...(await read(now)).values()];
    const first = await figures(T0 + 120 * HOUR + 1);
    // Later in the same hour: the same figures.
    expect(await figures(T0 + 120 * HOUR + 59 * 60_000)).toEqual(first);
    // The bucket starting at `now` counts, as `start_time <= now` always did.
    const next = await figures(T0 + 121 * HOUR);
    expect((next[0]?.windowAmount ?? 0) - (first[0]?.windowAmount ?? 0)).toBeCloseTo(1 + (121 % 7) / 10, 9);
    expect(await figures(T0 + 121 * HOUR + 30 * 60_000)).toEqual(next);
    await upsertBillingRecords(database, 'main', [bucket('pod-a', 115, 9)], T0 + 241 * HOUR);
    expect((await read(T0 + 121 * HOUR + 31 * 60_000)).get('pod-a')?.windowAmount).toBeCloseTo(
      (next[0]?.windowAmount ?? 0) + 9 - (1 + (115 % 7) / 10),
      9,
    );
  });

  it('reads whole days by the rollup primary key', () => {
    const database = temp.open();
    const plan = database.sqlite
      .prepare(
        `EXPLAIN QUERY PLAN SELECT resource_id, total(total_amount) FROM billing_days
         WHERE account = 'main' AND kind = 'pods' AND bucket_size = 'hour' AND day_start >= 0 AND day_start < 1
         GROUP BY resource_id`,
      )
      .all() as Array<{ detail: string }>;
    expect(plan.map((row) => row.detail).join('\n')).toMatch(
      /SEARCH billing_days USING (PRIMARY KEY|INDEX sqlite_autoindex_billing_days_1) \(account=\? AND kind=\? AND bucket_size=\? AND day_start>\? AND day_start<\?\)/,
    );
  });
});
