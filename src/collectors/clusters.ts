import type { Cluster } from '../api/schemas.js';
import { type ClusterInput, syncClusters } from '../db/clusters.js';
import { clusters } from '../db/schema.js';
import type { Collector } from './collector.js';
import { collectResult, unreadableOf } from './rejected-items.js';

const CLUSTER_LIST = { key: 'clusters', one: 'cluster', many: 'clusters', kept: 'kept as last read' };

/**
 * `clusters`: the latest state of every Instant Cluster; vanished clusters are marked gone. A
 * cluster the schema rejects keeps its last stored row, and the run names it.
 */
export const clustersCollector: Collector<'clusters'> = {
  name: 'clusters',
  feeds: [clusters],
  async collect(ctx) {
    const listed = await ctx.api.rest.listClusters({ signal: ctx.signal });
    const rows = listed.items.map(clusterRow);
    const { upserted, gone } = await syncClusters(ctx.db, ctx.account, rows, ctx.now, unreadableOf(listed.rejected));
    return collectResult(upserted + gone.length, [listed.rejected, CLUSTER_LIST]);
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
