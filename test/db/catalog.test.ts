import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type GpuAvailabilityInput,
  gpuAvailabilityHistory,
  latestGpuAvailability,
  recordGpuAvailability,
  upsertDataCenters,
  upsertGpuTypes,
} from '../../src/db/catalog.js';
import { type Database, openDatabase } from '../../src/db/open.js';
import { dataCenters } from '../../src/db/schema.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { tracedDatabase } from '../helpers/traced-database.js';
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

const globalKey = { account: 'main', gpuTypeId: H100, product: 'POD', dataCenterId: '' } as const;

describe('GPU availability history', () => {
  it('adds a row only when stock or price changes; otherwise moves last_seen_at', () => {
    const database = temp.open();
    const polls: GpuAvailabilityInput[][] = [
      [h100()],
      [h100()],
      [h100({ availability: 'LOW' })],
      [h100({ availability: 'LOW' })],
      [h100({ availability: 'LOW', priceSecure: 3.19 })],
      [h100({ availability: 'HIGH', priceSecure: 3.19 })],
    ];
    const results = polls.map((observations, minute) =>
      recordGpuAvailability(database, 'main', observations, T0 + minute * MINUTE),
    );
    expect(results.map((result) => result.changed)).toEqual([1, 0, 1, 0, 1, 1]);

    expect(
      gpuAvailabilityHistory(database, globalKey).map(({ availability, priceSecure, sinceAt, lastSeenAt }) => ({
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

  it('keeps products, data centers and accounts apart, treats null as a value, and reports the latest of each', () => {
    const database = temp.open();
    const poll = (availability: string | null) => [
      h100(),
      h100({ product: 'SERVERLESS', priceServerless: 4.18 }),
      h100({ dataCenterId: 'US-KS-2', availability, priceSecure: null, priceCommunity: null }),
    ];
    expect(recordGpuAvailability(database, 'main', poll('MEDIUM'), T0)).toEqual({ changed: 3, unchanged: 0 });
    expect(recordGpuAvailability(database, 'main', poll(null), T0 + MINUTE)).toEqual({ changed: 1, unchanged: 2 });
    expect(recordGpuAvailability(database, 'main', poll(null), T0 + 2 * MINUTE)).toEqual({ changed: 0, unchanged: 3 });
    expect(recordGpuAvailability(database, 'other', [h100({ availability: 'NONE' })], T0)).toEqual({
      changed: 1,
      unchanged: 0,
    });

    const latest = latestGpuAvailability(database, 'main').map((row) => [
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
    expect(latestGpuAvailability(database, 'other').map((row) => row.availability)).toEqual(['NONE']);
  });

  it('records an item listed twice in one poll once, as its last listing says', () => {
    const database = temp.open();
    recordGpuAvailability(database, 'main', [h100()], T0);
    const twice = [h100({ availability: 'LOW' }), h100({ availability: 'LOW' })];
    expect(recordGpuAvailability(database, 'main', twice, T0 + MINUTE)).toEqual({ changed: 1, unchanged: 0 });
    expect(gpuAvailabilityHistory(database, globalKey).map((row) => [row.availability, row.lastSeenAt])).toEqual([
      ['HIGH', T0],
      ['LOW', T0 + MINUTE],
    ]);
    // Two different figures for one item at one time: the last one listed is the one kept.
    const conflicting = [h100({ availability: 'MEDIUM' }), h100({ availability: 'HIGH' })];
    expect(recordGpuAvailability(database, 'main', conflicting, T0 + 2 * MINUTE)).toEqual({ changed: 1, unchanged: 0 });
    expect(latestGpuAvailability(database, 'main').map((row) => row.availability)).toEqual(['HIGH']);
    expect(gpuAvailabilityHistory(database, globalKey).map((row) => row.availability)).toEqual(['HIGH', 'LOW', 'HIGH']);
  });
});

/** The latest figures read afresh from the table, as the latest query groups them. */
function storedLatest(database: Database, account: string) {
  return database.sqlite
    .prepare(
      `SELECT account, gpu_type_id AS gpuTypeId, product, data_center_id AS dataCenterId, availability,
         price_secure AS priceSecure, price_community AS priceCommunity, price_serverless AS priceServerless,
         max_count_secure AS maxCountSecure, max_count_community AS maxCountCommunity,
         max(since_at) AS sinceAt, last_seen_at AS lastSeenAt
       FROM gpu_availability WHERE account = ? GROUP BY gpu_type_id, product, data_center_id`,
    )
    .all(account);
}

/**
 * A database at `traced.db` in the test's folder whose statements are recorded, and how many of
 * them so far read the latest figures afresh (the GROUP BY with max(since_at)).
 */
function _tracedLatest() {
  const statements: string[] = [];
  const path = join(temp.dir(), 'traced.db');
  openDatabase(path).close();
  const database = tracedDatabase(path, statements);
  return { database, latestReads: () => statements.filter((sql) => sql.includes('max(since_at)')).length };
}

describe('latest GPU figures kept from the poll', () => {
  it('are what the table holds after every poll: committed, rolled back, or another connection writing', () => {
    const database = temp.open('polled.db');
    const other = temp.open('polled.db');
    const next = seededRandom(5);
    const items = ['A100', 'H100', 'L4'].flatMap((gpuTypeId) =>
      (['POD', 'SERVERLESS'] as const).flatMap((product) =>
        ['', 'EU-1', 'US-2'].map((dataCenterId) => ({ gpuTypeId, product, dataCenterId })),
      ),
    );
    const levels = ['HIGH', 'LOW', null];
    const kinds = { plain: 0, committed: 0, rolledBack: 0, other: 0 };
    for (let step = 1; step <= 80; step++) {
      const at = T0 + step * MINUTE;
      const observations = items
        .filter(() => next() < 0.8)
        .map((item) =>
          h100({
            ...item,
            availability: next() < 0.8 ? 'HIGH' : (levels[Math.floor(next() * 3)] ?? null),
            priceSecure: next() < 0.9 ? 2.99 : 3.19,
          }),
        );
      const roll = next();
      if (roll < 0.4) {
        recordGpuAvailability(database, 'main', observations, at);
        kinds.plain += 1;
      } else if (roll < 0.7) {
        // As the collector does: one transaction for the poll.
        database.transaction(() => recordGpuAvailability(database, 'main', observations, at));
        kinds.committed += 1;
      } else if (roll < 0.85) {
        expect(() =>
          database.transaction(() => {
            recordGpuAvailability(database, 'main', observations, at);
            throw new Error('a later write of the poll failed');
          }),
        ).toThrow(/later write/);
        kinds.rolledBack += 1;
      } else {
        recordGpuAvailability(other, 'main', observations, at);
        kinds.other += 1;
      }
      expect(latestGpuAvailability(database, 'main'), `step ${step}`).toEqual(storedLatest(database, 'main'));
      expect(latestGpuAvailability(other, 'main'), `step ${step}`).toEqual(storedLatest(other, 'main'));
    }
    expect(Object.values(kinds).every((count) => count > 5)).toBe(true);
  });
});

describe('catalog descriptions', () => {
  it('keeps the latest description of each GPU type and data center with first and last seen', async () => {
    const database = temp.open();
    const gpu = { gpuTypeId: H100, name: 'H100 SXM', memoryGb: 80, pool: 'HOPPER_80', manufacturer: 'NVIDIA' };
    await upsertGpuTypes(database, 'main', [gpu], T0);
    await upsertGpuTypes(database, 'main', [{ ...gpu, name: 'H100 SXM5' }], T0 + MINUTE);
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
    await upsertDataCenters(database, 'main', [dataCenter], T0);
    expect(database.db.select().from(dataCenters).all()).toEqual([
      { account: 'main', ...dataCenter, firstSeenAt: T0, lastSeenAt: T0 },
    ]);
  });
});
