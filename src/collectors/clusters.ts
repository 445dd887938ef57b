import type { Cluster } from '../api/schemas.js';
import { type ClusterInput, syncClusters } from '../db/clusters.js';
import type { Collector } from './collector.js';

/** `clusters`: the latest state of every Instant Cluster; vanished clusters are marked gone. */
export const clustersCollector: Collector = {
  name: 'clusters',
  async collect(ctx) {
    const listed = await ctx.api.rest.listClusters({ signal: ctx.signal });
    const rows = listed.map(clusterRow);
    return ctx.db.transaction(() => {
      const { upserted, gone } = syncClusters(ctx.db, ctx.account, rows, ctx.now);
      return { rows: upserted + gone.length };
    });
  },
};

function clusterRow(cluster: Cluster): ClusterInput {
  return {
    clusterId: cluster.id,
    name: cluster.name,
    type: cluster.type,
    gpuTypeId: cluster.compute.gpuTypeId,
    gpuCountPerPod: cluster.compute.gpuCountPerPod,
    podCount: cluster.compute.podCount,
    podsByStatus: { ...cluster.pods.byStatus },
    dataCenterId: cluster.dataCenterId ?? null,
    createdAt: Date.parse(cluster.createdAt),
  };
}
