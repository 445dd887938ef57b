import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { type LatestInput, trackedSync } from './latest.js';
import type { Database } from './open.js';
import { clusters } from './schema.js';
import { perDatabase } from './statements.js';

export type ClusterRecord = typeof clusters.$inferSelect;
export type ClusterInput = LatestInput<typeof clusters>;

/** The latest `GET /clusters` of an account: upserts every cluster, marks the missing ones gone. */
export const syncClusters = trackedSync(clusters, 'clusterId');

/** The account's live items, by id. */
export async function liveClusters(database: Database, account: string): Promise<readonly ClusterRecord[]> {
  return liveQuery(database).all({ account });
}

const liveQuery = perDatabase((database) =>
  database.db
    .select()
    .from(clusters)
    .where(and(eq(clusters.account, sql.placeholder('account')), isNull(clusters.goneAt)))
    .orderBy(asc(clusters.clusterId))
    .prepare(),
);
