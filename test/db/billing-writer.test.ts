import { describe, expect, it } from 'vitest';
import { type BillingRecordInput, upsertBillingRecords } from '../../src/db/billing.js';
import type { BillingKind, BucketSize } from '../../src/db/schema.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { HOUR, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();

describe('billing rows inserted many to a statement', () => {
  it('stores every row as given when kinds and bucket sizes alternate within one write, batches and rests alike', async () => {
    const database = temp.open('writer.db');
    const next = seededRandom(5);
    const groups: Array<[BillingKind, BucketSize, number]> = [
      ['pods', 'hour', 150],
      ['serverless', 'hour', 3],
      ['pods', 'day', 70],
      ['account', 'hour', 1],
      ['network_volumes', 'hour', 64],
      ['pods', 'hour', 65],
    ];
    const records: BillingRecordInput[] = [];
    for (const [group, [kind, bucketSize, count]] of groups.entries()) {
      for (let i = 0; i < count; i++) {
        const gpuAmount = Math.round(next() * 1e6) / 1e6;
        const diskAmount = Math.round(next() * 1e4) / 1e6;
        const startTime = T0 + (group * 200 + i) * HOUR;
        records.push({
          kind,
          resourceId: kind === 'account' ? '' : `r-${group}-${i}`,
          bucketSize,
          startTime,
          endTime: startTime + HOUR,
          totalAmount: gpuAmount + diskAmount,
          amounts: { totalAmount: gpuAmount + diskAmount, gpuAmount, diskAmount },
        });
      }
    }
    const fetchedAt = T0 + 2_000 * HOUR;
    expect(await upsertBillingRecords(database, 'main', records, fetchedAt)).toEqual({
      written: records.length,
      unchanged: 0,
    });
    const stored = database.sqlite
      .prepare(
        `SELECT account, kind, resource_id, bucket_size, start_time, end_time, total_amount, amounts, fetched_at
         FROM billing_records ORDER BY kind, bucket_size, start_time, resource_id`,
      )
      .raw()
      .all();
    const expected = records
      .map((r) => [
        'main',
        r.kind,
        r.resourceId,
        r.bucketSize,
        r.startTime,
        r.endTime,
        r.totalAmount,
        JSON.stringify(r.amounts),
        fetchedAt,
      ])
      .sort(
        (a, b) => `${a[1]}\u0000${a[3]}`.localeCompare(`${b[1]}\u0000${b[3]}`) || (a[4] as number) - (b[4] as number),
      );
    expect(stored).toEqual(expected);
  });
});
