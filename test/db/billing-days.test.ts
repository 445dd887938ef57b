import type BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { type BillingRecordInput, upsertBillingRecords } from '../../src/db/billing.js';
import type { Database } from '../../src/db/open.js';
import { lastComputeAt } from '../../src/db/waste.js';
import { replaceBillingWindow } from '../helpers/billing-reads.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { DAY, HOUR, migrationsBefore, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();
const PODS = ['pod-a', 'pod-b', 'pod-c'];
const HOURS = 96;

/** The pods bucket of `resourceId` at `hour` as stored, as a re-read reporting it unchanged would give it. */
function storedBucket(database: Database, resourceId: string, hour: number): BillingRecordInput | undefined {
  const startTime = T0 + hour * HOUR;
  const stored = database.sqlite
    .prepare(
      `SELECT end_time AS endTime, total_amount AS totalAmount, amounts FROM billing_records
       WHERE resource_id = ? AND start_time = ?`,
    )
    .get(resourceId, startTime) as { endTime: number; totalAmount: number; amounts: string } | undefined;
  if (stored === undefined) return undefined;
  return podsHour(resourceId, startTime, stored.endTime, stored.totalAmount, JSON.parse(stored.amounts));
}

function podsHour(
  resourceId: string,
  startTime: number,
  endTime: number,
  totalAmount: number,
  amounts: Record<string, number>,
): BillingRecordInput {
  return { kind: 'pods', resourceId, bucketSize: 'hour', startTime, endTime, totalAmount, amounts };
}

function bucket(resourceId: string, hour: number, next: () => number): BillingRecordInput {
  const startTime = T0 + hour * HOUR;
  // Compute is billed about half the time, so a correction can take it away or bring it.
  const gpuAmount = next() < 0.5 ? 0 : Math.round(next() * 1000) / 700;
  const cpuAmount = next() < 0.8 ? 0 : 0.1;
  const diskAmount = Math.round(next() * 100) / 300;
  const totalAmount = gpuAmount + cpuAmount + diskAmount;
  // The running bucket ends when it was read: a re-read can move its end.
  const endTime = next() < 0.9 ? startTime + HOUR : startTime + Math.floor(next() * HOUR);
  return podsHour(resourceId, startTime, endTime, totalAmount, { totalAmount, gpuAmount, cpuAmount, diskAmount });
}

/** What podwarden stored before: the upsert and deletes whose triggers (migrations/0009) kept billing_days. */
function storeWithTriggers(
  sqlite: BetterSqlite3.Database,
  window: { from: number; to: number } | undefined,
  records: BillingRecordInput[],
  fetchedAt: number,
) {
  const upsert = sqlite.prepare(
    `INSERT INTO billing_records (account, kind, resource_id, bucket_size, start_time, end_time, total_amount, amounts, fetched_at)
     VALUES ('main', 'pods', ?, 'hour', ?, ?, ?, ?, ?)
     ON CONFLICT (account, kind, resource_id, bucket_size, start_time) DO UPDATE SET end_time = excluded.end_time,
       total_amount = excluded.total_amount, amounts = excluded.amounts, fetched_at = excluded.fetched_at
     WHERE total_amount IS NOT excluded.total_amount OR amounts IS NOT excluded.amounts OR end_time IS NOT excluded.end_time`,
  );
  sqlite.transaction(() => {
    for (const r of records) {
      upsert.run(r.resourceId, r.startTime, r.endTime, r.totalAmount, JSON.stringify(r.amounts), fetchedAt);
    }
    if (!window) return;
    const kept = new Set(records.map((r) => `${r.resourceId}@${r.startTime}`));
    const stored = sqlite
      .prepare(
        `SELECT resource_id, start_time FROM billing_records WHERE account = 'main' AND kind = 'pods'
           AND bucket_size = 'hour' AND start_time >= ? AND start_time < ?`,
      )
      .raw()
      .all(window.from, window.to) as Array<[string, number]>;
    for (const [resourceId, startTime] of stored) {
      if (kept.has(`${resourceId}@${startTime}`)) continue;
      sqlite
        .prepare(
          `DELETE FROM billing_records WHERE account = 'main' AND kind = 'pods' AND bucket_size = 'hour'
             AND resource_id = ? AND start_time = ?`,
        )
        .run(resourceId, startTime);
    }
  })();
}

/** The same window re-read stored by podwarden into `database` and as before, with triggers, into `old`. */
async function replaceWindowBothWays(
  database: Database,
  old: Database,
  window: { from: number; to: number },
  records: BillingRecordInput[],
  fetchedAt: number,
) {
  await replaceBillingWindow(
    database,
    { account: 'main', kind: 'pods', bucketSize: 'hour', ...window },
    records,
    fetchedAt,
  );
  storeWithTriggers(old.sqlite, window, records, fetchedAt);
}

const DAYS_SQL = `SELECT account, kind, bucket_size, day_start, resource_id, total_amount, covered_through
  FROM billing_days ORDER BY account, kind, bucket_size, day_start, resource_id`;
const RECORDS_SQL = `SELECT account, kind, resource_id, bucket_size, start_time, end_time, total_amount, amounts, fetched_at
  FROM billing_records ORDER BY account, kind, bucket_size, start_time, resource_id`;

/** The compute columns as a sum over every stored bucket would give them. */
function computeFromBuckets(database: Database) {
  return database.sqlite
    .prepare(
      `SELECT d.day_start, d.resource_id, d.compute_start, d.compute_end,
         (SELECT max(start_time) FROM billing_records r WHERE r.account = d.account AND r.kind = d.kind
            AND r.bucket_size = d.bucket_size AND r.resource_id = d.resource_id
            AND r.start_time >= d.day_start AND r.start_time < d.day_start + ${DAY}
            AND coalesce(json_extract(amounts, '$.gpuAmount'), 0) + coalesce(json_extract(amounts, '$.cpuAmount'), 0) > 0),
         (SELECT max(end_time) FROM billing_records r WHERE r.account = d.account AND r.kind = d.kind
            AND r.bucket_size = d.bucket_size AND r.resource_id = d.resource_id
            AND r.start_time >= d.day_start AND r.start_time < d.day_start + ${DAY}
            AND coalesce(json_extract(amounts, '$.gpuAmount'), 0) + coalesce(json_extract(amounts, '$.cpuAmount'), 0) > 0)
       FROM billing_days d ORDER BY d.day_start, d.resource_id`,
    )
    .raw()
    .all() as number[][];
}

/** The waste rules' question as it was asked of billing_records before the rollup had compute columns. */
function lastComputeFromBuckets(database: Database, since: number): Map<string, number> {
  const rows = database.sqlite
    .prepare(
      `SELECT resource_id, max(end_time) FROM billing_records
       WHERE account = 'main' AND kind = 'pods' AND bucket_size = 'hour' AND start_time >= ?
         AND coalesce(json_extract(amounts, '$.gpuAmount'), 0) + coalesce(json_extract(amounts, '$.cpuAmount'), 0) > 0
       GROUP BY resource_id`,
    )
    .raw()
    .all(since) as Array<[string, number]>;
  return new Map(rows);
}

describe('billing_days kept by the billing store', () => {
  it('holds the very figures the triggers held, through new, corrected, repeated and withdrawn buckets', async () => {
    const database = temp.open('store.db');
    const old = temp.open('triggers.db', {
      migrationsFolder: migrationsBefore(temp.dir(), '0015_billing_without_rowid'),
    });
    const next = seededRandom(7);
    let fetchedAt = T0 + HOURS * HOUR;
    let corrections = 0;
    let withdrawn = 0;
    for (let step = 0; step < 60; step++) {
      fetchedAt += HOUR;
      const fromHour = Math.floor(next() * (HOURS - 30));
      const toHour = fromHour + 1 + Math.floor(next() * 30);
      const records: BillingRecordInput[] = [];
      for (let hour = fromHour; hour < toHour; hour++) {
        for (const pod of PODS) {
          // Most buckets come back as stored; some change, some vanish, some are new.
          const stored = storedBucket(database, pod, hour);
          const roll = next();
          if (stored && roll < 0.75) {
            records.push(stored);
          } else if (roll < 0.93) {
            records.push(bucket(pod, hour, next));
            if (stored) corrections++;
          } else if (stored) withdrawn++;
        }
      }
      // A bucket listed twice keeps its last version, as the upsert did.
      if (records.length > 0 && next() < 0.2) records.push(bucket(records[0]?.resourceId ?? 'pod-a', fromHour, next));
      const window = { from: T0 + fromHour * HOUR, to: T0 + toHour * HOUR };
      if (next() < 0.8) {
        await replaceWindowBothWays(database, old, window, records, fetchedAt);
      } else {
        await upsertBillingRecords(database, 'main', records, fetchedAt);
        storeWithTriggers(old.sqlite, undefined, records, fetchedAt);
      }
      expect(database.sqlite.prepare(RECORDS_SQL).raw().all()).toEqual(old.sqlite.prepare(RECORDS_SQL).raw().all());
      // toEqual on doubles is exact: the same arithmetic in the same order.
      expect(database.sqlite.prepare(DAYS_SQL).raw().all()).toEqual(old.sqlite.prepare(DAYS_SQL).raw().all());
      for (const [, , computeStart, computeEnd, fromStart, fromEnd] of computeFromBuckets(database)) {
        expect([computeStart, computeEnd]).toEqual([fromStart, fromEnd]);
      }
      const since = T0 + Math.floor(next() * HOURS) * HOUR - Math.floor(next() * HOUR);
      expect(await lastComputeAt(database, 'main', 'hour', PODS, since)).toEqual(
        lastComputeFromBuckets(database, since),
      );
    }
    // The sequence did exercise what it is meant to.
    expect(corrections).toBeGreaterThan(20);
    expect(withdrawn).toBeGreaterThan(10);
  });

  it('holds them too for days of many resources, written many to a statement, corrections and withdrawals among them', async () => {
    const database = temp.open('many.db');
    const old = temp.open('many-triggers.db', {
      migrationsFolder: migrationsBefore(temp.dir(), '0015_billing_without_rowid'),
    });
    const next = seededRandom(11);
    // 150 resources a day: two full statements of 64 and a rest, as a large account's slice has.
    const pods = Array.from({ length: 150 }, (_, i) => `pod-${String(i).padStart(3, '0')}`);
    const window = { from: T0 + 20 * HOUR, to: T0 + 30 * HOUR };
    let fetchedAt = T0 + HOURS * HOUR;
    let changed = 0;
    for (let step = 0; step < 4; step++) {
      fetchedAt += HOUR;
      const records: BillingRecordInput[] = [];
      for (let hour = 20; hour < 30; hour++) {
        for (const pod of pods) {
          const roll = next();
          // The first store is all new; later ones keep most buckets, correct some and withdraw a few.
          if (step > 0 && roll < 0.1) {
            changed++;
            continue;
          }
          if (step > 0 && roll < 0.7) {
            const stored = storedBucket(database, pod, hour);
            if (stored) {
              records.push(stored);
              continue;
            }
          }
          if (step > 0) changed++;
          records.push(bucket(pod, hour, next));
        }
      }
      await replaceWindowBothWays(database, old, window, records, fetchedAt);
      expect(database.sqlite.prepare(RECORDS_SQL).raw().all()).toEqual(old.sqlite.prepare(RECORDS_SQL).raw().all());
      expect(database.sqlite.prepare(DAYS_SQL).raw().all()).toEqual(old.sqlite.prepare(DAYS_SQL).raw().all());
      for (const [, , computeStart, computeEnd, fromStart, fromEnd] of computeFromBuckets(database)) {
        expect([computeStart, computeEnd]).toEqual([fromStart, fromEnd]);
      }
    }
    expect(database.sqlite.prepare('SELECT count(*) FROM billing_days').pluck().get()).toBeGreaterThanOrEqual(150);
    expect(changed).toBeGreaterThan(500);
  });
});
