import { describe, expect, it } from 'vitest';
import {
  type GpuAvailabilityInput,
  gpuAvailabilityHistory,
  latestGpuAvailability,
  storeCatalogPoll,
} from '../../src/db/catalog.js';
import type { Database } from '../../src/db/open.js';
import { dataCenters } from '../../src/db/schema.js';
import { MINUTE, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();

const H100 = 'NVIDIA H100 80GB HBM3';

function h100(overrides: Partial<GpuAvailabilityInput> = {}): GpuAvailabilityInput {
  return {
    gpuTypeId: H100,
    product: 'POD',
    dataCenterId: '',
    availability: 'HIGH',
    priceSecure: 2.99,
    priceCommunity: 2.39,
    priceServerless: null,
    maxCountSecure: 8,
    maxCountCommunity: 4,
    ...overrides,
  };
}

/** A catalog poll as the collector stores it (nothing given: nothing of that part listed). */
const storePoll = (database: Database, now: number, poll: Partial<Parameters<typeof storeCatalogPoll>[1]>) =>
  storeCatalogPoll(database, {
    account: 'main',
    gpuTypes: [],
    cpuTypes: [],
    dataCenters: [],
    observed: [],
    vanished: () => [],
    now,
    ...poll,
  });

/** A catalog poll of availability alone; how many figures changed. */
const recordGpuAvailability = (database: Database, account: string, observed: GpuAvailabilityInput[], now: number) =>
  storePoll(database, now, { account, observed });

const globalKey = { account: 'main', gpuTypeId: H100, product: 'POD', dataCenterId: '' } as const;

describe('GPU availability history', () => {
  it('adds a row only when stock or price changes; otherwise moves last_seen_at', async () => {
    const database = temp.open();
    const polls: GpuAvailabilityInput[][] = [
      [h100()],
      [h100()],
      [h100({ availability: 'LOW' })],
      [h100({ availability: 'LOW' })],
      [h100({ availability: 'LOW', priceSecure: 3.19 })],
      [h100({ availability: 'HIGH', priceSecure: 3.19 })],
    ];
    const changed: number[] = [];
    for (const [minute, observations] of polls.entries()) {
      changed.push(await recordGpuAvailability(database, 'main', observations, T0 + minute * MINUTE));
    }
    expect(changed).toEqual([1, 0, 1, 0, 1, 1]);

    expect(
      (await gpuAvailabilityHistory(database, globalKey)).map(({ availability, priceSecure, sinceAt, lastSeenAt }) => ({
        availability,
        priceSecure,
        sinceAt,
        lastSeenAt,
      })),
    ).toEqual([
      { availability: 'HIGH', priceSecure: 2.99, sinceAt: T0, lastSeenAt: T0 + MINUTE },
      { availability: 'LOW', priceSecure: 2.99, sinceAt: T0 + 2 * MINUTE, lastSeenAt: T0 + 3 * MINUTE },
      { availability: 'LOW', priceSecure: 3.19, sinceAt: T0 + 4 * MINUTE, lastSeenAt: T0 + 4 * MINUTE },
      { availability: 'HIGH', priceSecure: 3.19, sinceAt: T0 + 5 * MINUTE, lastSeenAt: T0 + 5 * MINUTE },
    ]);
  });

  it('keeps products, data centers and accounts apart, treats null as a value, and reports the latest of each', async () => {
    const database = temp.open();
    const poll = (availability: string | null) => [
      h100(),
      h100({ product: 'SERVERLESS', priceServerless: 4.18 }),
      h100({ dataCenterId: 'US-KS-2', availability, priceSecure: null, priceCommunity: null }),
    ];
    expect(await recordGpuAvailability(database, 'main', poll('MEDIUM'), T0)).toBe(3);
    expect(await recordGpuAvailability(database, 'main', poll(null), T0 + MINUTE)).toBe(1);
    expect(await recordGpuAvailability(database, 'main', poll(null), T0 + 2 * MINUTE)).toBe(0);
    expect(await recordGpuAvailability(database, 'other', [h100({ availability: 'NONE' })], T0)).toBe(1);

    const latest = (await latestGpuAvailability(database, 'main')).map((row) => [
      row.product,
      row.dataCenterId,
      row.availability,
      row.sinceAt,
      row.lastSeenAt,
    ]);
    expect(latest.sort()).toEqual(
      [
        ['POD', '', 'HIGH', T0, T0 + 2 * MINUTE],
        ['POD', 'US-KS-2', null, T0 + MINUTE, T0 + 2 * MINUTE],
        ['SERVERLESS', '', 'HIGH', T0, T0 + 2 * MINUTE],
      ].sort(),
    );
    expect((await latestGpuAvailability(database, 'other')).map((row) => row.availability)).toEqual(['NONE']);
  });

  it('records an item listed twice in one poll once, as its last listing says', async () => {
    const database = temp.open();
    await recordGpuAvailability(database, 'main', [h100()], T0);
    const twice = [h100({ availability: 'LOW' }), h100({ availability: 'LOW' })];
    expect(await recordGpuAvailability(database, 'main', twice, T0 + MINUTE)).toBe(1);
    expect(
      (await gpuAvailabilityHistory(database, globalKey)).map((row) => [row.availability, row.lastSeenAt]),
    ).toEqual([
      ['HIGH', T0],
      ['LOW', T0 + MINUTE],
    ]);
    // Two different figures for one item at one time: the last one listed is the one kept.
    const conflicting = [h100({ availability: 'MEDIUM' }), h100({ availability: 'HIGH' })];
    expect(await recordGpuAvailability(database, 'main', conflicting, T0 + 2 * MINUTE)).toBe(1);
    expect((await latestGpuAvailability(database, 'main')).map((row) => row.availability)).toEqual(['HIGH']);
    expect((await gpuAvailabilityHistory(database, globalKey)).map((row) => row.availability)).toEqual([
      'HIGH',
      'LOW',
      'HIGH',
    ]);
  });
});

describe('catalog descriptions', () => {
  it('keeps the latest description of each GPU type and data center with first and last seen', async () => {
    const database = temp.open();
    const gpu = { gpuTypeId: H100, name: 'H100 SXM', memoryGb: 80, pool: 'HOPPER_80', manufacturer: 'NVIDIA' };
    await storePoll(database, T0, { gpuTypes: [gpu] });
    await storePoll(database, T0 + MINUTE, { gpuTypes: [{ ...gpu, name: 'H100 SXM5' }] });
    expect(database.sqlite.prepare('SELECT name, first_seen_at, last_seen_at FROM gpu_types').all()).toEqual([
      { name: 'H100 SXM5', first_seen_at: T0, last_seen_at: T0 + MINUTE },
    ]);

    const dataCenter = {
      dataCenterId: 'US-KS-2',
      name: 'US Kansas 2',
      region: 'NORTH_AMERICA',
      globalNetwork: true,
      networkVolumeTypes: ['STANDARD', 'HIGH_PERFORMANCE'],
      compliance: [],
    };
    await storePoll(database, T0, { dataCenters: [dataCenter] });
    expect(database.db.select().from(dataCenters).all()).toEqual([
      { account: 'main', ...dataCenter, firstSeenAt: T0, lastSeenAt: T0 },
    ]);
  });
});
