import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { type LatestInput, trackedSync } from './latest.js';
import type { Database } from './open.js';
import { clusters } from './schema.js';
import { inventoryRead, perDatabase } from './statements.js';

export type ClusterRecord = typeof clusters.$inferSelect;
export type ClusterInput = LatestInput<typeof clusters>;

/** The latest `GET /clusters` of an account: upserts every cluster, marks the missing ones gone. */
export const syncClusters = trackedSync(clusters, 'clusterId');

/** The account's live items, by id. Shared between callers (kept until the inventory is written): do not modify. */
export function liveClusters(database: Database, account: string): readonly ClusterRecord[] {
  return liveClusterRecords.get(database, account);
}

// Prepared once: read again after every write of the table (each poll moves last_seen_at).
const liveQuery = perDatabase((database) =>
  database.db
    .select()
    .from(clusters)
    .where(and(eq(clusters.account, sql.placeholder('account')), isNull(clusters.goneAt)))
    .orderBy(asc(clusters.clusterId))
    .prepare(),
);

const liveClusterRecords = inventoryRead(
  (database: Database, account: string): readonly ClusterRecord[] => liveQuery(database).all({ account }),
  [clusters],
);
