import { describe, expect, it } from 'vitest';
import { syncClusters } from '../../src/db/clusters.js';
import { lastFetched, stalestFirst } from '../../src/db/freshness.js';
import type { Database } from '../../src/db/open.js';
import { type EndpointInput, storeEndpointPoll } from '../../src/db/serverless.js';
import { type NetworkVolumeInput, syncNetworkVolumes } from '../../src/db/volumes.js';
import {
  insertWorkerSamples,
  liveClusters,
  liveEndpoints,
  liveNetworkVolumes,
  syncEndpoints,
  workerSamplesBetween,
} from '../helpers/store.js';
import { clusterInput, MINUTE, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();

const endpoint: EndpointInput = {
  endpointId: 'ep-1',
  name: 'sdxl',
  type: 'QUEUE',
  gpuPools: ['ADA_24'],
  gpuCount: 1,
  workersMin: 1,
  workersMax: 3,
  idleTimeoutS: 5,
  createdAt: T0,
};

describe('clusters, endpoints and network volumes', () => {
  it('tracks clusters with their Pods by status, and marks a deleted cluster gone', async () => {
    const database = temp.open();
    await syncClusters(
      database,
      'main',
      [clusterInput('c1', { RUNNING: 3, PROVISIONING: 1 }), clusterInput('c2', {})],
      T0,
    );
    expect(await syncClusters(database, 'main', [clusterInput('c1', { RUNNING: 4 })], T0 + MINUTE)).toEqual({
      upserted: 1,
      gone: ['c2'],
    });
    expect(await liveClusters(database, 'main')).toMatchObject([
      { clusterId: 'c1', podsByStatus: { RUNNING: 4 }, firstSeenAt: T0, lastSeenAt: T0 + MINUTE, goneAt: null },
    ]);
  });

  it('tracks endpoints and stores their worker summaries per poll', async () => {
    const database = temp.open();
    await syncEndpoints(database, 'main', [endpoint], T0);
    expect(await liveEndpoints(database, 'main')).toMatchObject([
      { endpointId: 'ep-1', gpuPools: ['ADA_24'], goneAt: null },
    ]);
    const summary = { running: 1, idle: 0, initializing: 0, throttled: 0, unhealthy: 0, total: 1 };
    await insertWorkerSamples(database, 'main', [
      { endpointId: 'ep-1', observedAt: T0, ...summary },
      { endpointId: 'ep-1', observedAt: T0 + MINUTE, ...summary, running: 0, idle: 1 },
    ]);
    await insertWorkerSamples(database, 'main', [
      { endpointId: 'ep-1', observedAt: T0 + MINUTE, ...summary, running: 0, idle: 1 },
    ]);
    expect(await workerSamplesBetween(database, 'main', T0 + MINUTE, T0 + 2 * MINUTE)).toEqual([
      { account: 'main', endpointId: 'ep-1', observedAt: T0 + MINUTE, ...summary, running: 0, idle: 1 },
    ]);
    expect((await syncEndpoints(database, 'main', [], T0 + 2 * MINUTE)).gone).toEqual(['ep-1']);
  });

  it('tracks network volumes under the name network_volume_id', async () => {
    const database = temp.open();
    const volume: NetworkVolumeInput = {
      networkVolumeId: 'vol-1',
      name: 'datasets',
      sizeGb: 500,
      dataCenterId: 'US-KS-2',
      type: 'STANDARD',
    };
    await syncNetworkVolumes(database, 'main', [volume], T0);
    await syncNetworkVolumes(database, 'main', [{ ...volume, sizeGb: 1000 }], T0 + MINUTE);
    expect(await liveNetworkVolumes(database, 'main')).toEqual([
      { account: 'main', ...volume, sizeGb: 1000, firstSeenAt: T0, lastSeenAt: T0 + MINUTE, goneAt: null },
    ]);
  });
});

/** Marks items fetched as an endpoint poll does that found no endpoints and sampled none. */
const markFetched = (database: Database, account: string, kind: string, fetched: string[], now: number) =>
  storeEndpointPoll(database, {
    account,
    endpoints: [],
    unreadable: { ids: [], anonymous: false },
    samples: [],
    fetchedKind: kind,
    fetched,
    now,
  });

describe('item freshness', () => {
  it('orders a rotation never-fetched first, then stalest, and remembers across runs', async () => {
    const database = temp.open();
    const kind = 'endpoint-workers';
    const endpoints = ['ep-1', 'ep-2', 'ep-3', 'ep-4'];
    expect(await stalestFirst(database, 'main', kind, endpoints)).toEqual(endpoints);

    await markFetched(database, 'main', kind, ['ep-1', 'ep-2'], T0);
    expect(await stalestFirst(database, 'main', kind, endpoints)).toEqual(['ep-3', 'ep-4', 'ep-1', 'ep-2']);
    await markFetched(database, 'main', kind, ['ep-3', 'ep-4'], T0 + MINUTE);
    await markFetched(database, 'main', kind, ['ep-2'], T0 + 2 * MINUTE);
    expect(await stalestFirst(database, 'main', kind, endpoints)).toEqual(['ep-1', 'ep-3', 'ep-4', 'ep-2']);

    expect(await lastFetched(database, 'main', kind)).toEqual(
      new Map([
        ['ep-1', T0],
        ['ep-2', T0 + 2 * MINUTE],
        ['ep-3', T0 + MINUTE],
        ['ep-4', T0 + MINUTE],
      ]),
    );
    expect((await lastFetched(database, 'other', kind)).size).toBe(0);
  });
});
