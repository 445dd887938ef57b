import { and, asc, eq, isNull } from 'drizzle-orm';
import { type LatestInput, trackedSync } from './latest.js';
import type { Database } from './open.js';
import { networkVolumes } from './schema.js';

export type NetworkVolumeRecord = typeof networkVolumes.$inferSelect;
export type NetworkVolumeInput = LatestInput<typeof networkVolumes>;

/** The latest `GET /network-volumes` of an account: upserts every volume, marks the missing ones gone. */
export const syncNetworkVolumes = trackedSync(networkVolumes, 'networkVolumeId');

export function liveNetworkVolumes(database: Database, account: string): NetworkVolumeRecord[] {
  return database.db
    .select()
    .from(networkVolumes)
    .where(and(eq(networkVolumes.account, account), isNull(networkVolumes.goneAt)))
    .orderBy(asc(networkVolumes.networkVolumeId))
    .all();
}
