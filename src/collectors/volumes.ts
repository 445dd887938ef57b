import type { NetworkVolume } from '../api/schemas.js';
import { networkVolumes } from '../db/schema.js';
import { type NetworkVolumeInput, syncNetworkVolumes } from '../db/volumes.js';
import type { Collector } from './collector.js';
import { collectResult, unreadableOf } from './rejected-items.js';

const VOLUME_LIST = {
  key: 'networkVolumes',
  one: 'network volume',
  many: 'network volumes',
  kept: 'kept as last read',
};

/**
 * `volumes`: the account's network volumes; deleted ones are marked gone, never removed. A volume
 * the schema rejects keeps its last stored row, and the run names it.
 */
export const volumesCollector: Collector<'volumes'> = {
  name: 'volumes',
  feeds: [networkVolumes],
  async collect(ctx) {
    const listed = await ctx.api.rest.listNetworkVolumes({ signal: ctx.signal });
    const rows = listed.items.map(volumeRow);
    const { upserted, gone } = await syncNetworkVolumes(
      ctx.db,
      ctx.account,
      rows,
      ctx.now,
      unreadableOf(listed.rejected),
    );
    return collectResult(upserted + gone.length, [listed.rejected, VOLUME_LIST]);
  },
};

function volumeRow(volume: NetworkVolume): NetworkVolumeInput {
  return {
    networkVolumeId: volume.id,
    name: volume.name,
    sizeGb: volume.size,
    dataCenterId: volume.dataCenter,
    type: volume.type,
  };
}
