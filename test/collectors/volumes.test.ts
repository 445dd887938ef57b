import { describe, expect, it } from 'vitest';
import { volumesCollector } from '../../src/collectors/volumes.js';
import { ACCOUNT, type Harness } from '../helpers/harness.js';
import { liveNetworkVolumes } from '../helpers/store.js';
import { emptyScenario, HOUR, MINUTE, pollAt, T0, useHarness } from './support.js';

const harness = useHarness();

async function expectMatchesWorld(h: Harness) {
  const truth = h.sim.world.volumesView(h.clock.now());
  const rows = await liveNetworkVolumes(h.db, ACCOUNT);
  expect(rows.map((row) => row.networkVolumeId)).toEqual(truth.map((volume) => volume.id).sort());
  for (const volume of truth) {
    expect(rows.find((row) => row.networkVolumeId === volume.id)).toMatchObject({
      name: volume.name,
      sizeGb: volume.size,
      dataCenterId: volume.dataCenter,
      type: volume.type,
    });
  }
}

describe('volumes collector', () => {
  it('stores every network volume of small-team as the simulator serves it', async () => {
    const h = await harness('small-team.yaml');
    const result = await pollAt(h, volumesCollector, MINUTE);
    await expectMatchesWorld(h);
    expect(result.rows).toBe(2);
    expect((await liveNetworkVolumes(h.db, ACCOUNT)).find((row) => row.networkVolumeId === 'vol-ckpt')).toMatchObject({
      name: 'checkpoints',
      sizeGb: 500,
      dataCenterId: 'US-TX-3',
      type: 'HIGH_PERFORMANCE',
    });
  });

  it('adds a volume created later and keeps when each was first seen', async () => {
    const h = await harness(
      emptyScenario({
        volumes: [
          { id: 'vol-a', name: 'datasets', size: 100, dataCenter: 'US-KS-2' },
          { id: 'vol-b', name: 'scratch', size: 50, dataCenter: 'EU-RO-1', createdAt: '1h' },
        ],
      }),
    );
    await pollAt(h, volumesCollector, MINUTE);
    expect((await liveNetworkVolumes(h.db, ACCOUNT)).map((row) => row.networkVolumeId)).toEqual(['vol-a']);
    await pollAt(h, volumesCollector, 2 * HOUR);
    await expectMatchesWorld(h);
    expect(
      (await liveNetworkVolumes(h.db, ACCOUNT)).map((row) => [
        row.networkVolumeId,
        row.firstSeenAt - T0,
        row.lastSeenAt - T0,
      ]),
    ).toEqual([
      ['vol-a', MINUTE, 2 * HOUR],
      ['vol-b', 2 * HOUR, 2 * HOUR],
    ]);
  });
});
