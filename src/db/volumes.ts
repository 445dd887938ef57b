import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { type LatestInput, trackedSync } from './latest.js';
import type { Database } from './open.js';
import { networkVolumes } from './schema.js';
import { perDatabase } from './statements.js';

export type NetworkVolumeRecord = typeof networkVolumes.$inferSelect;
export type NetworkVolumeInput = LatestInput<typeof networkVolumes>;

/** The latest `GET /network-volumes` of an account: upserts every volume, marks the missing ones gone. */
export const syncNetworkVolumes = trackedSync(networkVolumes, 'networkVolumeId');

/** The account's live volumes, by id (the waste snapshot reads them in its transaction). */
export function liveNetworkVolumeRows(database: Database, account: string): readonly NetworkVolumeRecord[] {
  return liveQuery(database).all({ account });
}

const liveQuery = perDatabase((database) =>
  database.db
    .select()
    .from(networkVolumes)
    .where(and(eq(networkVolumes.account, sql.placeholder('account')), isNull(networkVolumes.goneAt)))
    .orderBy(asc(networkVolumes.networkVolumeId))
    .prepare(),
);
