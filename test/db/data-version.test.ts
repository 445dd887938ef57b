import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { type GpuAvailabilityInput, latestGpuAvailability, recordGpuAvailability } from '../../src/db/catalog.js';
import type { Database } from '../../src/db/open.js';
import { insertWorkerSamples, syncEndpoints } from '../../src/db/serverless.js';
import { oneDataVersion } from '../../src/db/statements.js';
import { wasteFindings as wasteRule } from '../../src/rules/waste.js';
import { readSnapshots } from '../../src/tick/run.js';

/** The waste rule on a snapshot of the database at `now`, as a tick reads it. */
function wasteFindings(database: Database, config: Config, now: number) {
  return wasteRule(readSnapshots(database, { config }, now), config, now);
}

import { ACCOUNT, HOUR } from '../rules/fixtures.js';
import { endpointInput, endpointSample, MINUTE, useTempDatabases } from './support.js';

const databases = useTempDatabases();
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const config = parseConfig(
  {
    accounts: [
      { name: ACCOUNT, apiKey: 'sim-key-0001' },
      { name: 'second', apiKey: 'sim-key-0002' },
    ],
  },
  { env: {}, baseDir: '/' },
);

const endpoint = endpointInput('ep-idle');

function gpu(availability: string): GpuAvailabilityInput {
  return {
    gpuTypeId: 'NVIDIA H100 80GB HBM3',
    product: 'POD',
    dataCenterId: '',
    availability,
    priceSecure: 2.99,
    priceCommunity: 2.39,
    priceServerless: null,
    maxCountSecure: 8,
    maxCountCommunity: 4,
  };
}

/** An endpoint with minimum workers up and no work for ten hours. */
function idleEndpoint(database: ReturnType<typeof databases.open>): void {
  syncEndpoints(database, ACCOUNT, [endpoint], NOW - 11 * HOUR);
  const samples = [];
  for (let t = NOW - 10 * HOUR; t <= NOW; t += 5 * MINUTE) samples.push(endpointSample('ep-idle', t));
  insertWorkerSamples(database, ACCOUNT, samples);
}

describe('one data_version per synchronous stretch', () => {
  it('sees a commit by another connection from the next tick on', () => {
    const database = databases.open();
    const other = databases.open();
    idleEndpoint(database);
    expect(wasteFindings(database, config, NOW)).toHaveLength(1);
    // The CLI (another connection) records work on the endpoint between two ticks.
    insertWorkerSamples(other, ACCOUNT, [endpointSample('ep-idle', NOW + MINUTE, 1)]);
    expect(wasteFindings(database, config, NOW + MINUTE)).toEqual([]);
    expect(wasteFindings(database, config, NOW + MINUTE)).toEqual(wasteFindings(other, config, NOW + MINUTE));
  });

  it('reads a commit made during a stretch as made just after it, and an async stretch ends at its first await', async () => {
    const database = databases.open();
    const other = databases.open();
    recordGpuAvailability(database, ACCOUNT, [gpu('HIGH')], NOW);
    const levels = () => latestGpuAvailability(database, ACCOUNT).map((row) => row.availability);
    oneDataVersion(database, () => {
      expect(levels()).toEqual(['HIGH']);
      recordGpuAvailability(other, ACCOUNT, [gpu('LOW')], NOW + MINUTE);
      // Nested stretches keep the outer one's version.
      expect(oneDataVersion(database, levels)).toEqual(['HIGH']);
    });
    expect(levels()).toEqual(['LOW']);
    await oneDataVersion(database, async () => {
      expect(levels()).toEqual(['LOW']);
      await Promise.resolve();
      recordGpuAvailability(other, ACCOUNT, [gpu('NONE')], NOW + 2 * MINUTE);
      expect(levels()).toEqual(['NONE']);
    });
  });

  it('keeps what this connection writes in a stretch visible at once (its writers invalidate)', () => {
    const database = databases.open();
    recordGpuAvailability(database, ACCOUNT, [gpu('HIGH')], NOW);
    oneDataVersion(database, () => {
      expect(latestGpuAvailability(database, ACCOUNT).map((row) => row.availability)).toEqual(['HIGH']);
      recordGpuAvailability(database, ACCOUNT, [gpu('LOW')], NOW + MINUTE);
      expect(latestGpuAvailability(database, ACCOUNT).map((row) => row.availability)).toEqual(['LOW']);
    });
  });
});
