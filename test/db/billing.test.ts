import { describe, expect, it } from 'vitest';
import {
  advanceBackfill,
  type BackfillKey,
  type BillingRecordInput,
  beginBackfill,
  completeBackfill,
  getBackfill,
  upsertBillingRecords,
} from '../../src/db/billing.js';
import { billingRecordsIn, sumBilling, sumBillingByResource } from '../helpers/billing-reads.js';
import { DAY, HOUR, podBucket, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();

const window = { account: 'main', kind: 'pods', bucketSize: 'hour', from: T0, to: T0 + DAY } as const;

function snapshot(database: ReturnType<typeof temp.open>) {
  return database.sqlite.prepare('SELECT * FROM billing_records ORDER BY resource_id, start_time').all();
}

describe('billing records', () => {
  it('stores a window once: re-polling the same window changes nothing, not even fetched_at', async () => {
    const database = temp.open();
    const records = [podBucket('pod-a', 0, 2.99), podBucket('pod-a', 1, 2.99), podBucket('pod-b', 0, 0.44)];
    expect(await upsertBillingRecords(database, 'main', records, T0 + 2 * HOUR)).toEqual({ written: 3, unchanged: 0 });
    const before = snapshot(database);

    expect(await upsertBillingRecords(database, 'main', records, T0 + 3 * HOUR)).toEqual({ written: 0, unchanged: 3 });
    expect(snapshot(database)).toEqual(before);
    expect(await sumBilling(database, window)).toBeCloseTo(2.99 * 2 + 0.44 + 0.03, 10);
  });

  it('replaces a bucket whose amounts were corrected, and keeps every amount field verbatim', async () => {
    const database = temp.open();
    await upsertBillingRecords(database, 'main', [podBucket('pod-a', 0, 1.5), podBucket('pod-a', 1, 2.99)], T0 + HOUR);
    // Billing lags: the second read of the trailing window reports the full first hour.
    const result = await upsertBillingRecords(
      database,
      'main',
      [podBucket('pod-a', 0, 2.99), podBucket('pod-a', 1, 2.99)],
      T0 + 2 * HOUR,
    );
    expect(result).toEqual({ written: 1, unchanged: 1 });

    const stored = await billingRecordsIn(database, window);
    expect(stored).toHaveLength(2);
    expect(stored[0]).toMatchObject({
      resourceId: 'pod-a',
      startTime: T0,
      endTime: T0 + HOUR,
      totalAmount: 3,
      amounts: { totalAmount: 3, gpuAmount: 2.99, cpuAmount: 0, diskAmount: 0.01 },
      fetchedAt: T0 + 2 * HOUR,
    });
    expect(stored[1]?.fetchedAt).toBe(T0 + HOUR);
  });

  it('sums per resource over [from, to), without mixing bucket sizes, kinds or accounts', async () => {
    const database = temp.open();
    await upsertBillingRecords(
      database,
      'main',
      [
        podBucket('pod-a', 0, 1),
        podBucket('pod-a', 23, 1),
        podBucket('pod-a', 24, 100), // the next day: outside the window
        podBucket('pod-b', 5, 2),
        { ...podBucket('pod-a', 0, 50), bucketSize: 'day', endTime: T0 + DAY },
        { ...podBucket('', 0, 7), kind: 'account' },
      ],
      T0,
    );
    await upsertBillingRecords(database, 'other', [podBucket('pod-a', 1, 1000)], T0);

    expect(await sumBillingByResource(database, window)).toEqual([
      { resourceId: 'pod-a', totalAmount: expect.closeTo(2.02, 10) },
      { resourceId: 'pod-b', totalAmount: expect.closeTo(2.01, 10) },
    ]);
    expect(await sumBillingByResource(database, { ...window, kind: 'account' })).toEqual([
      { resourceId: '', totalAmount: expect.closeTo(7.01, 10) },
    ]);
    expect(await sumBilling(database, { ...window, kind: 'clusters' })).toBe(0);
  });

  it('rejects a kind or bucket size outside the API vocabulary', async () => {
    const database = temp.open();
    const bad = { ...podBucket('pod-a', 0, 1), kind: 'gpus' } as unknown as BillingRecordInput;
    await expect(upsertBillingRecords(database, 'main', [bad], T0)).rejects.toThrow(
      /CHECK constraint failed: billing_records_kind_check/,
    );
  });
});

describe('billing backfill progress', () => {
  const key: BackfillKey = { account: 'main', kind: 'pods', bucketSize: 'hour' };
  const began = T0 + 30 * DAY;
  const target = T0;

  it('resumes at the cursor after a restart instead of starting over', async () => {
    const path = 'backfill.db';
    const first = temp.open(path);
    expect(await getBackfill(first, key)).toBeUndefined();
    expect(await beginBackfill(first, key, { from: began, targetStartTime: target })).toMatchObject({
      cursorStartTime: began,
      targetStartTime: target,
      doneAt: null,
    });
    // Two windows stored, each followed by its progress; then a crash.
    for (const cursor of [began - 7 * DAY, began - 14 * DAY]) {
      await upsertBillingRecords(first, 'main', [podBucket('pod-a', (cursor - T0) / HOUR, 1)], began);
      await advanceBackfill(first, key, cursor);
    }
    first.close();

    const second = temp.open(path);
    // A restart asks to begin again, later and with a new target: the stored progress wins.
    const resumed = await beginBackfill(second, key, { from: began + DAY, targetStartTime: target + DAY });
    expect(resumed).toEqual({ ...key, cursorStartTime: began - 14 * DAY, targetStartTime: target, doneAt: null });
  });

  it('moves the cursor only backwards and completes once', async () => {
    const database = temp.open();
    await beginBackfill(database, key, { from: began, targetStartTime: target });
    await advanceBackfill(database, key, began - 10 * DAY);
    await advanceBackfill(database, key, began - 3 * DAY); // a replayed older step
    expect((await getBackfill(database, key))?.cursorStartTime).toBe(began - 10 * DAY);

    await completeBackfill(database, key, began + HOUR);
    await completeBackfill(database, key, began + 2 * HOUR);
    expect((await getBackfill(database, key))?.doneAt).toBe(began + HOUR);
    expect(await getBackfill(database, { ...key, kind: 'clusters' })).toBeUndefined();
  });
});
