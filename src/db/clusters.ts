import { type LatestInput, trackedSync } from './latest.js';
import { clusters } from './schema.js';

export type ClusterRecord = typeof clusters.$inferSelect;
export type ClusterInput = LatestInput<typeof clusters>;

/** The latest `GET /clusters` of an account: upserts every cluster, marks the missing ones gone. */
export const syncClusters = trackedSync(clusters, 'clusterId');
