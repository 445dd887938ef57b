import { describe, expect, it } from 'vitest';
import { type GpuStockInput, latestGpuStock, recordGpuStock } from '../../src/db/stock.js';
import { gpuStockHistory } from '../helpers/store.js';
import { MINUTE, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();
const H100 = 'NVIDIA H100 80GB HBM3';

function h100(overrides: Partial<GpuStockInput> = {}): GpuStockInput {
  return {
    gpuTypeId: H100,
    cloud: 'SECURE',
    stockStatus: 'High',
    availableGpuCounts: [1, 2, 4, 8],
    uninterruptablePrice: 2.99,
    ...overrides,
  };
}

describe('gpu stock history', () => {
  it('adds a row only when a figure changes; unchanged polls move last_seen_at', async () => {
    const db = temp.open();
    expect(await recordGpuStock(db, 'main', [h100()], T0)).toEqual({ changed: 1, unchanged: 0 });
    expect(await recordGpuStock(db, 'main', [h100()], T0 + 5 * MINUTE)).toEqual({ changed: 0, unchanged: 1 });
    expect((await recordGpuStock(db, 'main', [h100({ availableGpuCounts: [1, 2] })], T0 + 10 * MINUTE)).changed).toBe(
      1,
    );
    expect((await recordGpuStock(db, 'main', [h100({ availableGpuCounts: [1, 2] })], T0 + 15 * MINUTE)).changed).toBe(
      0,
    );
    expect(
      (await recordGpuStock(db, 'main', [h100({ availableGpuCounts: [1, 2], stockStatus: null })], T0 + 20 * MINUTE))
        .changed,
    ).toBe(1);
    expect(
      (
        await recordGpuStock(
          db,
          'main',
          [h100({ availableGpuCounts: [1, 2], stockStatus: null, uninterruptablePrice: 3.19 })],
          T0 + 25 * MINUTE,
        )
      ).changed,
    ).toBe(1);

    const history = await gpuStockHistory(db, { account: 'main', gpuTypeId: H100, cloud: 'SECURE' });
    expect(
      history.map((row) => [row.sinceAt - T0, row.lastSeenAt - T0, row.availableGpuCounts, row.stockStatus]),
    ).toEqual([
      [0, 5 * MINUTE, [1, 2, 4, 8], 'High'],
      [10 * MINUTE, 15 * MINUTE, [1, 2], 'High'],
      [20 * MINUTE, 20 * MINUTE, [1, 2], null],
      [25 * MINUTE, 25 * MINUTE, [1, 2], null],
    ]);
  });

  it('keeps clouds and accounts apart, and lists the latest figures of each', async () => {
    const db = temp.open();
    await recordGpuStock(db, 'main', [h100(), h100({ cloud: 'COMMUNITY', stockStatus: 'Low' })], T0);
    await recordGpuStock(db, 'main', [h100({ stockStatus: 'Medium' })], T0 + MINUTE);
    await recordGpuStock(db, 'other', [h100({ stockStatus: 'None', availableGpuCounts: [] })], T0);

    expect((await latestGpuStock(db, 'main')).map((row) => [row.cloud, row.stockStatus, row.sinceAt - T0])).toEqual([
      ['COMMUNITY', 'Low', 0],
      ['SECURE', 'Medium', MINUTE],
    ]);
    expect(await latestGpuStock(db, 'other')).toMatchObject([
      { cloud: 'SECURE', stockStatus: 'None', availableGpuCounts: [] },
    ]);
    // Read by hand, the latest rows are the history's newest rows as drizzle maps them, field for field.
    const newest = async (cloud: 'SECURE' | 'COMMUNITY') =>
      (await gpuStockHistory(db, { account: 'main', gpuTypeId: H100, cloud })).at(-1);
    expect(await latestGpuStock(db, 'main')).toStrictEqual([await newest('COMMUNITY'), await newest('SECURE')]);
  });

  it('lists what each poll leaves, whichever connection wrote it', async () => {
    const db = temp.open('kept.db');
    const other = temp.open('kept.db');
    const fresh = async (database: typeof db) => {
      const rows = [];
      for (const cloud of ['COMMUNITY', 'SECURE'] as const) {
        const newest = (await gpuStockHistory(database, { account: 'main', gpuTypeId: H100, cloud })).at(-1);
        if (newest) rows.push(newest);
      }
      return rows;
    };
    const statuses = ['High', 'High', 'Low', 'High', 'None'];
    for (const [step, stockStatus] of statuses.entries()) {
      const writer = step === 3 ? other : db;
      await recordGpuStock(writer, 'main', [h100({ stockStatus }), h100({ cloud: 'COMMUNITY' })], T0 + step * MINUTE);
      const kept = await latestGpuStock(db, 'main');
      expect(kept, `poll ${step}`).toStrictEqual(await fresh(db));
    }
    expect(await latestGpuStock(other, 'main')).toStrictEqual(await fresh(other));
  });

  it('rejects a cloud other than SECURE or COMMUNITY', async () => {
    const db = temp.open();
    await expect(recordGpuStock(db, 'main', [h100({ cloud: 'SPOT' as never })], T0)).rejects.toThrow(
      /CHECK constraint/,
    );
  });
});
