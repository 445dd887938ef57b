import { describe, expect, it } from 'vitest';
import { apiClientFor } from '../../src/api/from-config.js';
import { catalogCollector } from '../../src/collectors/catalog.js';
import { gpuAvailabilityHistory } from '../../src/db/catalog.js';
import type { CatalogProduct } from '../../src/db/schema.js';
import { ACCOUNT, type Harness } from '../helpers/harness.js';
import { useRewritingProxy } from '../helpers/rewriting-proxy.js';
import { HOUR, runAt, useTunedHarness } from './billing-support.js';

const harness = useTunedHarness();
const startRewritingProxy = useRewritingProxy();
const H200 = 'NVIDIA H200';
const L40S = 'NVIDIA L40S';

const scenario = {
  name: 'catalog-timeline',
  start: '2026-11-02T00:00:00Z',
  apiKey: 'sim-key',
  catalog: {
    gpus: [
      {
        id: H200,
        name: 'H200 SXM',
        memory: 141,
        pool: 'HOPPER_141',
        price: { secure: 3.99, community: 3.59, serverless: 5.58 },
        availability: [
          { at: '0s', value: 'NONE' },
          { at: '2h', value: 'LOW' },
          { at: '4h', value: 'HIGH' },
        ],
        dataCenters: ['US-KS-2', 'EU-RO-1'],
      },
      // No serverless pool: never available as SERVERLESS.
      {
        id: L40S,
        name: 'L40S',
        memory: 48,
        price: { secure: 0.86, community: 0.79 },
        availability: [
          { at: '0s', value: 'HIGH' },
          { at: '3h', value: 'NONE' },
        ],
      },
    ],
    dataCenters: [
      { id: 'US-KS-2', name: 'US Kansas 2' },
      { id: 'EU-RO-1', name: 'Europe Romania 1' },
      { id: 'US-TX-3', name: 'US Texas 3' },
    ],
  },
  faults: [{ from: '5h30m', to: '6h30m', match: '/v2/catalog/datacenters', kind: 'status', status: 404 }],
};

async function history(h: Harness, gpuTypeId: string, product: CatalogProduct, dataCenterId = '') {
  return (await gpuAvailabilityHistory(h.db, { account: ACCOUNT, gpuTypeId, product, dataCenterId })).map((row) => ({
    availability: row.availability,
    since: (row.sinceAt - h.scenario.startMs) / HOUR,
    lastSeen: (row.lastSeenAt - h.scenario.startMs) / HOUR,
  }));
}

describe('catalog collector', () => {
  it('keeps a history row per change of availability, per product and data center; polls in between only move last_seen', async () => {
    const h = await harness(scenario, (config) => {
      config.collectors.catalog.products = ['POD', 'SERVERLESS'];
    });
    for (let at = 0; at <= 5 * HOUR; at += HOUR) expect((await runAt(h, catalogCollector, at)).outcome).toBe('ok');

    expect(await history(h, H200, 'POD')).toEqual([
      { availability: 'NONE', since: 0, lastSeen: 1 },
      { availability: 'LOW', since: 2, lastSeen: 3 },
      { availability: 'HIGH', since: 4, lastSeen: 5 },
    ]);
    expect((await history(h, H200, 'SERVERLESS')).map((row) => row.availability)).toEqual(['NONE', 'LOW', 'HIGH']);
    expect(await history(h, H200, 'POD', 'US-KS-2')).toEqual([
      { availability: 'LOW', since: 2, lastSeen: 3 },
      { availability: 'HIGH', since: 4, lastSeen: 5 },
    ]);
    expect(await history(h, H200, 'POD', 'US-TX-3')).toEqual([]); // not offered there
    // A data center that drops out of the list when the type runs out is recorded as NONE.
    expect(await history(h, L40S, 'POD', 'EU-RO-1')).toEqual([
      { availability: 'HIGH', since: 0, lastSeen: 2 },
      { availability: 'NONE', since: 3, lastSeen: 5 },
    ]);
    expect(await history(h, L40S, 'SERVERLESS')).toEqual([{ availability: 'NONE', since: 0, lastSeen: 5 }]);
    const [global] = await gpuAvailabilityHistory(h.db, {
      account: ACCOUNT,
      gpuTypeId: H200,
      product: 'POD',
      dataCenterId: '',
    });
    expect(global).toMatchObject({ priceSecure: 3.99, priceCommunity: 3.59, priceServerless: 5.58, maxCountSecure: 8 });
  });

  it('stores GPU types, CPU types and data centers, and leaves everything untouched when one request fails', async () => {
    const h = await harness(scenario);
    await runAt(h, catalogCollector, 5 * HOUR);
    const tables = () => ({
      gpus: h.db.sqlite
        .prepare('SELECT gpu_type_id, name, memory_gb, pool, last_seen_at FROM gpu_types ORDER BY 1')
        .all(),
      cpus: h.db.sqlite.prepare('SELECT count(*) AS n FROM cpu_types').get(),
      dataCenters: h.db.sqlite.prepare('SELECT data_center_id, name, last_seen_at FROM data_centers ORDER BY 1').all(),
      availability: h.db.sqlite.prepare('SELECT * FROM gpu_availability ORDER BY 1, 2, 3, 4, since_at').all(),
    });
    const before = tables();
    expect(before.gpus).toEqual([
      {
        gpu_type_id: H200,
        name: 'H200 SXM',
        memory_gb: 141,
        pool: 'HOPPER_141',
        last_seen_at: h.scenario.startMs + 5 * HOUR,
      },
      { gpu_type_id: L40S, name: 'L40S', memory_gb: 48, pool: null, last_seen_at: h.scenario.startMs + 5 * HOUR },
    ]);
    expect(before.dataCenters).toHaveLength(3);
    expect((before.cpus as { n: number }).n).toBeGreaterThan(0);

    const failed = await runAt(h, catalogCollector, 6 * HOUR);

    expect(failed).toMatchObject({ outcome: 'error', rows: 0 });
    expect(failed.error).toContain('/catalog/datacenters');
    expect(tables()).toEqual(before);
  });

  it('stores a GPU type that lists one data center twice, the later entry winning, and the run succeeds', async () => {
    const h = await harness(scenario);
    // The v2 document sets no uniqueItems on a GPU type's dataCenters: the same place twice is a valid answer.
    const proxy = await startRewritingProxy(h.sim.restBaseUrl, '/v2/catalog/gpus', (answer) => {
      const { gpus } = answer as {
        gpus: Array<{ id: string; dataCenters?: Array<{ id: string; name: string; availability: string }> }>;
      };
      const h200 = gpus.find((gpu) => gpu.id === H200);
      if (!h200?.dataCenters) throw new Error('the scenario offers H200 in data centers');
      const kansas = h200.dataCenters.find((dc) => dc.id === 'US-KS-2');
      if (!kansas) throw new Error('the scenario offers H200 in US-KS-2');
      h200.dataCenters = [
        { ...kansas, availability: 'HIGH' },
        ...h200.dataCenters,
        { ...kansas, availability: 'MEDIUM' },
      ];
      return answer;
    });
    const account = { ...h.config.accounts[0], restBaseUrl: `${proxy.url}/v2` } as (typeof h.config.accounts)[0];
    const api = apiClientFor(h.config, account, { clock: h.clock, log: h.context().log, inflight: h.inflight });
    try {
      const report = await runAt(h, catalogCollector, 2 * HOUR, { api });
      expect(report.error).toBeUndefined();
      expect(report).toMatchObject({ outcome: 'ok' });
      expect(await history(h, H200, 'POD', 'US-KS-2')).toEqual([{ availability: 'MEDIUM', since: 2, lastSeen: 2 }]);
      expect(await history(h, H200, 'POD', 'EU-RO-1')).toEqual([{ availability: 'LOW', since: 2, lastSeen: 2 }]);
    } finally {
      await api.close();
    }
  });
});
