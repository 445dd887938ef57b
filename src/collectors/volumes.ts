import type { NetworkVolume } from '../api/schemas.js';
import { type NetworkVolumeInput, syncNetworkVolumes } from '../db/volumes.js';
import type { Collector } from './collector.js';

/** `volumes`: the account's network volumes; deleted ones are marked gone, never removed. */
export const volumesCollector: Collector = {
  name: 'volumes',
  async collect(ctx) {
    const listed = await ctx.api.rest.listNetworkVolumes({ signal: ctx.signal });
    const rows = listed.map(volumeRow);
    return ctx.db.transaction(() => {
      const { upserted, gone } = syncNetworkVolumes(ctx.db, ctx.account, rows, ctx.now);
      return { rows: upserted + gone.length };
    });
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
