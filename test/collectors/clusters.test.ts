import { describe, expect, it } from 'vitest';
import { clustersCollector } from '../../src/collectors/clusters.js';
import { ACCOUNT, type Harness } from '../helpers/harness.js';
import { liveClusters } from '../helpers/store.js';
import { HOUR, MINUTE, pollAt, T0, useHarness } from './support.js';

const harness = useHarness();

async function expectMatchesWorld(h: Harness) {
  const truth = h.sim.world.clustersView(h.clock.now());
  const rows = await liveClusters(h.db, ACCOUNT);
  expect(rows.map((row) => row.clusterId)).toEqual(truth.map((cluster) => cluster.id).sort());
  for (const cluster of truth) {
    expect(rows.find((row) => row.clusterId === cluster.id)).toMatchObject({
      name: cluster.name,
      type: cluster.type,
      gpuTypeId: cluster.compute.gpuTypeId,
      gpuCountPerPod: cluster.compute.gpuCountPerPod,
      podCount: cluster.compute.podCount,
      podsByStatus: cluster.pods.byStatus,
      dataCenterId: cluster.dataCenterId ?? null,
      createdAt: Date.parse(cluster.createdAt),
      lastSeenAt: h.clock.now(),
    });
  }
}

describe('clusters collector', () => {
  it('stores every cluster as the simulator serves it, and follows its members through the day', async () => {
    const h = await harness('small-team.yaml');
    const result = await pollAt(h, clustersCollector, 30 * MINUTE);
    await expectMatchesWorld(h);
    expect(result.rows).toBe(1);
    expect((await liveClusters(h.db, ACCOUNT))[0]).toMatchObject({
      clusterId: 'cl-pretrain',
      name: 'pretrain-cluster',
      type: 'TRAINING',
      gpuTypeId: 'NVIDIA H100 80GB HBM3',
      gpuCountPerPod: 8,
      podCount: 2,
      podsByStatus: { RUNNING: 2 },
      dataCenterId: 'US-KS-2',
      firstSeenAt: T0 + 30 * MINUTE,
    });

    // Both members are terminated at 16:00.
    await pollAt(h, clustersCollector, 16 * HOUR + 5 * MINUTE);
    await expectMatchesWorld(h);
    expect((await liveClusters(h.db, ACCOUNT))[0]).toMatchObject({ podsByStatus: {}, firstSeenAt: T0 + 30 * MINUTE });
  });
});
