import { describe, expect, it } from 'vitest';
import { type BillingRecordInput, upsertBillingRecords } from '../../src/db/billing.js';
import type { Database } from '../../src/db/open.js';
import { type SpendQuery, spendByResource } from '../../src/db/spend.js';
import { replaceBillingWindow } from '../helpers/billing-reads.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { DAY, HOUR, migrationsBefore, useTempDatabases } from './support.js';

const temp = useTempDatabases();
const PODS = ['pod-a', 'pod-b', 'pod-c', 'pod-d'];
/** Three days before a month's end: the writes below cross into the next month. */
const START = Date.UTC(2026, 10, 27);
const HOURS = 8 * 24;
const MONTH_START_SQL = "unixepoch(day_start / 1000, 'unixepoch', 'start of month') * 1000";

/** billing_months as kept by the writer. */
const MONTHS_SQL = `SELECT account, kind, bucket_size, month_start, resource_id, total_amount, covered_through
  FROM billing_months ORDER BY account, kind, bucket_size, month_start, resource_id`;

/** billing_months computed afresh from billing_days: each month's days in day order, per resource. */
function freshMonths(database: Database): unknown[] {
  const rows = database.sqlite
    .prepare(
      `SELECT account, kind, bucket_size, ${MONTH_START_SQL} AS month_start, resource_id, total_amount, covered_through
       FROM billing_days ORDER BY account, kind, bucket_size, resource_id, day_start`,
    )
    .raw()
    .all() as Array<[string, string, string, number, string, number, number]>;
  const months = new Map<string, [string, string, string, number, string, number[], number]>();
  for (const [account, kind, bucketSize, monthStart, resourceId, total, covered] of rows) {
    const key = [account, kind, bucketSize, monthStart, resourceId].join('\u0000');
    const month = months.get(key);
    if (month) {
      month[5].push(total);
      month[6] = Math.max(month[6], covered);
    } else months.set(key, [account, kind, bucketSize, monthStart, resourceId, [total], covered]);
  }
  // SQLite's own total() of the day values, in day order.
  const total = database.sqlite.prepare('SELECT total(value) FROM json_each(?)').pluck();
  return [...months.values()]
    .map(([account, kind, bucketSize, monthStart, resourceId, totals, covered]) => [
      account,
      kind,
      bucketSize,
      monthStart,
      resourceId,
      total.get(JSON.stringify(totals)),
      covered,
    ])
    .sort((a, b) => (String(a.slice(0, 5)) < String(b.slice(0, 5)) ? -1 : 1));
}

function months(database: Database): unknown[] {
  return (database.sqlite.prepare(MONTHS_SQL).raw().all() as unknown[][]).sort((a, b) =>
    String(a.slice(0, 5)) < String(b.slice(0, 5)) ? -1 : 1,
  );
}

function bucket(kind: 'pods' | 'serverless', resourceId: string, hour: number, next: () => number): BillingRecordInput {
  const startTime = START + hour * HOUR;
  const gpuAmount = next() < 0.5 ? 0 : Math.round(next() * 1000) / 700;
  const diskAmount = Math.round(next() * 100) / 300;
  const totalAmount = gpuAmount + diskAmount;
  // The running bucket ends when it was read: a re-read can move its end.
  const endTime = next() < 0.9 ? startTime + HOUR : startTime + Math.floor(next() * HOUR);
  return { kind, resourceId, bucketSize: 'hour', startTime, endTime, totalAmount, amounts: { totalAmount, gpuAmount } };
}

function storedBucket(database: Database, resourceId: string, hour: number): BillingRecordInput | undefined {
  const startTime = START + hour * HOUR;
  const row = database.sqlite
    .prepare(
      `SELECT end_time AS endTime, total_amount AS totalAmount, amounts FROM billing_records
       WHERE kind = 'pods' AND resource_id = ? AND start_time = ?`,
    )
    .get(resourceId, startTime) as { endTime: number; totalAmount: number; amounts: string } | undefined;
  if (!row) return undefined;
  const { endTime, totalAmount } = row;
  return {
    kind: 'pods',
    resourceId,
    bucketSize: 'hour',
    startTime,
    endTime,
    totalAmount,
    amounts: JSON.parse(row.amounts),
  };
}

/** A month's Pods budget figures as read by whole days alone, before billing_months. */
function byDays(database: Database, query: SpendQuery) {
  return database.sqlite
    .prepare(
      `SELECT resource_id AS resourceId, total(total_amount) AS periodAmount, max(covered_through) AS coveredThrough
       FROM billing_days WHERE account = ? AND kind = ? AND bucket_size = ? AND day_start >= ? AND day_start < ?
       GROUP BY resource_id ORDER BY resource_id`,
    )
    .all(query.account, query.kind, query.bucketSize, query.periodStart, query.periodEnd);
}

describe('billing_months kept by the billing store', () => {
  it('equals a fresh sum of billing_days after a backfill, new, corrected, re-sent and withdrawn buckets', async () => {
    const database = temp.open('months.db');
    const next = seededRandom(26);
    // A backfill: every hour of every Pod, a day per window (one transaction each), as the backfill writes.
    let fetchedAt = START + HOURS * HOUR;
    for (let day = 0; day < HOURS / 24; day++) {
      const records: BillingRecordInput[] = [];
      for (let hour = day * 24; hour < (day + 1) * 24; hour++) {
        for (const pod of PODS) records.push(bucket('pods', pod, hour, next));
      }
      const window = { account: 'main', kind: 'pods' as const, bucketSize: 'hour' as const };
      await replaceBillingWindow(
        database,
        { ...window, from: START + day * DAY, to: START + (day + 1) * DAY },
        records,
        fetchedAt,
      );
    }
    await upsertBillingRecords(database, 'main', [bucket('serverless', 'ep-1', 70, next)], fetchedAt);
    expect(months(database)).toEqual(freshMonths(database));
    expect(months(database).length).toBe(PODS.length * 2 + 1);
    let corrections = 0;
    let withdrawn = 0;
    let resent = 0;
    for (let step = 0; step < 40; step++) {
      fetchedAt += HOUR;
      const fromHour = Math.floor(next() * (HOURS - 40));
      const toHour = fromHour + 1 + Math.floor(next() * 40);
      const records: BillingRecordInput[] = [];
      for (let hour = fromHour; hour < toHour; hour++) {
        for (const pod of PODS) {
          const stored = storedBucket(database, pod, hour);
          const roll = next();
          if (stored && roll < 0.6) {
            records.push(stored);
            resent++;
          } else if (roll < 0.93) {
            records.push(bucket('pods', pod, hour, next));
            if (stored) corrections++;
          } else if (stored) withdrawn++;
        }
      }
      const window = { from: START + fromHour * HOUR, to: START + toHour * HOUR };
      if (next() < 0.7) {
        await replaceBillingWindow(
          database,
          { account: 'main', kind: 'pods', bucketSize: 'hour', ...window },
          records,
          fetchedAt,
        );
      } else {
        await upsertBillingRecords(database, 'main', records, fetchedAt);
      }
      // toEqual on doubles is exact.
      expect(months(database)).toEqual(freshMonths(database));
    }
    expect(corrections).toBeGreaterThan(100);
    expect(withdrawn).toBeGreaterThan(20);
    expect(resent).toBeGreaterThan(100);
    // A month's budget reads its row: the very figures its days give.
    const november: SpendQuery = {
      account: 'main',
      kind: 'pods',
      bucketSize: 'hour',
      periodStart: Date.UTC(2026, 10, 1),
      periodEnd: Date.UTC(2026, 11, 1),
      windowStart: Date.UTC(2026, 10, 29, 20),
    };
    const spend = (await spendByResource(database, november)).map(({ resourceId, periodAmount, coveredThrough }) => ({
      resourceId,
      periodAmount,
      coveredThrough,
    }));
    expect(spend).toEqual(byDays(database, november));
    expect(spend).toHaveLength(PODS.length);
  });

  it('is backfilled by its migration from the days already stored', () => {
    const old = temp.open('upgrade.db', { migrationsFolder: migrationsBefore(temp.dir(), '0027_billing_months') });
    const next = seededRandom(27);
    const records: BillingRecordInput[] = [];
    for (let hour = 0; hour < HOURS; hour++) {
      for (const pod of PODS) if (next() < 0.8) records.push(bucket('pods', pod, hour, next));
    }
    // Days as the writer of that schema kept them (this code's writer also keeps billing_months).
    const insert = old.sqlite.prepare(
      `INSERT INTO billing_records (account, kind, resource_id, bucket_size, start_time, end_time, total_amount, amounts, fetched_at)
       VALUES ('main', 'pods', ?, 'hour', ?, ?, ?, ?, ?)`,
    );
    old.transaction(() => {
      for (const r of records) {
        insert.run(r.resourceId, r.startTime, r.endTime, r.totalAmount, JSON.stringify(r.amounts), r.endTime);
      }
      old.sqlite.exec(
        `INSERT INTO billing_days (account, kind, bucket_size, day_start, resource_id, total_amount, covered_through)
         SELECT account, kind, bucket_size, start_time - start_time % ${DAY}, resource_id, total(total_amount),
           max(min(end_time, fetched_at))
         FROM billing_records GROUP BY account, kind, bucket_size, start_time - start_time % ${DAY}, resource_id`,
      );
    });
    old.close();
    const upgraded = temp.open('upgrade.db');
    expect(months(upgraded).length).toBe(PODS.length * 2);
    expect(months(upgraded)).toEqual(freshMonths(upgraded));
  });
});
