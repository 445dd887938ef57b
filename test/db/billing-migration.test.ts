import { describe, expect, it } from 'vitest';
import { spendByResource } from '../../src/db/spend.js';
import { lastComputeAt } from '../../src/db/waste.js';
import { DAY, HOUR, migrationsBefore, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();
const TAG = '0015_billing_without_rowid';

const RECORDS_SQL = `SELECT account, kind, resource_id, bucket_size, start_time, end_time, total_amount, amounts, fetched_at
  FROM billing_records ORDER BY account, kind, resource_id, bucket_size, start_time`;
const DAYS_SQL = `SELECT account, kind, bucket_size, day_start, resource_id, total_amount, covered_through
  FROM billing_days ORDER BY account, kind, bucket_size, day_start, resource_id`;

describe(`migration ${TAG}`, () => {
  it('keeps every billing row and every daily figure, and learns when each Pod last billed compute', async () => {
    const old = temp.open('upgrade.db', { migrationsFolder: migrationsBefore(temp.dir(), TAG) });
    const insert = old.sqlite.prepare(
      `INSERT INTO billing_records (account, kind, resource_id, bucket_size, start_time, end_time, total_amount, amounts, fetched_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    old.transaction(() => {
      for (let hour = 0; hour < 3 * 24; hour++) {
        const start = T0 + hour * HOUR;
        for (const [pod, gpuAmount] of [
          ['pod-a', hour < 30 ? 0.69 : 0],
          ['pod-b', hour % 5 === 0 ? 1.1 : 0],
        ] as const) {
          const amounts = { totalAmount: gpuAmount + 0.01, gpuAmount, cpuAmount: 0, diskAmount: 0.01 };
          insert.run(
            'main',
            'pods',
            pod,
            'hour',
            start,
            start + HOUR,
            amounts.totalAmount,
            JSON.stringify(amounts),
            start + HOUR,
          );
        }
        insert.run('main', 'account', '', 'hour', start, start + HOUR, 2.5, '{"totalAmount":2.5}', start + HOUR);
        insert.run(
          'other',
          'pods',
          'pod-a',
          'hour',
          start,
          start + HOUR,
          0.2,
          '{"totalAmount":0.2,"cpuAmount":0.2}',
          start + HOUR,
        );
      }
      insert.run('main', 'pods', 'pod-a', 'day', T0, T0 + DAY, 16.6, '{"totalAmount":16.6,"gpuAmount":16.6}', T0 + DAY);
    });
    const records = old.sqlite.prepare(RECORDS_SQL).raw().all();
    const days = old.sqlite.prepare(DAYS_SQL).raw().all();
    expect(records).toHaveLength(3 * 24 * 4 + 1);
    expect(days.length).toBeGreaterThan(0);
    old.close();

    const upgraded = temp.open('upgrade.db');
    expect(upgraded.sqlite.prepare(RECORDS_SQL).raw().all()).toEqual(records);
    expect(upgraded.sqlite.prepare(DAYS_SQL).raw().all()).toEqual(days);
    // The compute columns of the days already stored.
    const compute = upgraded.sqlite
      .prepare(
        `SELECT account, resource_id, bucket_size, day_start, compute_start, compute_end FROM billing_days
         WHERE kind = 'pods' ORDER BY account, resource_id, bucket_size, day_start`,
      )
      .raw()
      .all();
    expect(compute).toEqual([
      ['main', 'pod-a', 'day', T0, T0, T0 + DAY],
      ['main', 'pod-a', 'hour', T0, T0 + 23 * HOUR, T0 + DAY],
      ['main', 'pod-a', 'hour', T0 + DAY, T0 + 29 * HOUR, T0 + 30 * HOUR],
      ['main', 'pod-a', 'hour', T0 + 2 * DAY, null, null],
      ['main', 'pod-b', 'hour', T0, T0 + 20 * HOUR, T0 + 21 * HOUR],
      ['main', 'pod-b', 'hour', T0 + DAY, T0 + 45 * HOUR, T0 + 46 * HOUR],
      ['main', 'pod-b', 'hour', T0 + 2 * DAY, T0 + 70 * HOUR, T0 + 71 * HOUR],
      ['other', 'pod-a', 'hour', T0, T0 + 23 * HOUR, T0 + DAY],
      ['other', 'pod-a', 'hour', T0 + DAY, T0 + 47 * HOUR, T0 + 2 * DAY],
      ['other', 'pod-a', 'hour', T0 + 2 * DAY, T0 + 71 * HOUR, T0 + 3 * DAY],
    ]);
    expect(await lastComputeAt(upgraded, 'main', 'hour', ['pod-a', 'pod-b', 'pod-c'], T0 + 12 * HOUR)).toEqual(
      new Map([
        ['pod-a', T0 + 30 * HOUR],
        ['pod-b', T0 + 71 * HOUR],
      ]),
    );
    expect(
      await spendByResource(upgraded, {
        account: 'main',
        kind: 'account',
        bucketSize: 'hour',
        periodStart: T0,
        periodEnd: T0 + 3 * DAY,
        windowStart: T0 + DAY,
      }),
    ).toEqual([{ resourceId: '', periodAmount: 72 * 2.5, windowAmount: 48 * 2.5, coveredThrough: T0 + 3 * DAY }]);

    // One b-tree keyed by the bucket, no other index, no triggers: billing_days is the store's to keep.
    const schema = (sql: string) => upgraded.sqlite.prepare(sql).pluck().all();
    expect(
      schema(`SELECT name FROM sqlite_schema WHERE name = 'billing_records' AND sql LIKE '%WITHOUT ROWID'`),
    ).toEqual(['billing_records']);
    expect(schema(`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'billing_records'`)).toEqual([]);
    expect(schema(`SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name LIKE 'billing%'`)).toEqual([]);
    const plan = upgraded.sqlite
      .prepare(
        `EXPLAIN QUERY PLAN SELECT resource_id, total_amount FROM billing_records
         WHERE account = 'main' AND kind = 'pods' AND bucket_size = 'hour' AND start_time >= 1 AND start_time < 2`,
      )
      .all()
      .map((row) => (row as { detail: string }).detail)
      .join(' ');
    expect(plan).toMatch(
      /SEARCH billing_records USING PRIMARY KEY \(account=\? AND kind=\? AND bucket_size=\? AND start_time>\? AND start_time<\?\)/,
    );
  });
});
