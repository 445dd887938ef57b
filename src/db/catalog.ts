import { and, asc, eq, sql } from 'drizzle-orm';
import { recordChanges } from './change-history.js';
import { type LatestInput, latestUpsert } from './latest.js';
import type { Database } from './open.js';
import { type CatalogProduct, cpuTypes, dataCenters, gpuAvailability, gpuTypes } from './schema.js';
import { perDatabase, placeholdersFor, rowWriter } from './statements.js';

export type GpuAvailabilityRecord = typeof gpuAvailability.$inferSelect;

/** Stock and prices of one GPU type for one product, globally (dataCenterId '') or in one data center. */
export interface GpuAvailabilityInput {
  gpuTypeId: string;
  product: CatalogProduct;
  dataCenterId: string;
  availability: string | null;
  priceSecure: number | null;
  priceCommunity: number | null;
  priceServerless: number | null;
  maxCountSecure: number | null;
  maxCountCommunity: number | null;
}

const observedFields = [
  'availability',
  'priceSecure',
  'priceCommunity',
  'priceServerless',
  'maxCountSecure',
  'maxCountCommunity',
] as const satisfies ReadonlyArray<keyof GpuAvailabilityInput>;

const statements = perDatabase((database) => {
  const key = and(
    eq(gpuAvailability.account, sql.placeholder('account')),
    eq(gpuAvailability.gpuTypeId, sql.placeholder('gpuTypeId')),
    eq(gpuAvailability.product, sql.placeholder('product')),
    eq(gpuAvailability.dataCenterId, sql.placeholder('dataCenterId')),
  );
  return {
    latest: database.db
      .select()
      .from(gpuAvailability)
      .where(key)
      .orderBy(sql`${gpuAvailability.sinceAt} DESC`)
      .limit(1)
      .prepare(),
    touch: database.db
      .update(gpuAvailability)
      .set({ lastSeenAt: sql`max(${gpuAvailability.lastSeenAt}, ${sql.placeholder('now')})` })
      .where(and(key, eq(gpuAvailability.sinceAt, sql.placeholder('sinceAt'))))
      .prepare(),
    insert: rowWriter<typeof gpuAvailability.$inferInsert>(
      database,
      database.db.insert(gpuAvailability).values(placeholdersFor(gpuAvailability)),
    ),
  };
});

/** Records one catalog poll with change-only history (see recordChanges). */
export function recordGpuAvailability(
  database: Database,
  account: string,
  observations: readonly GpuAvailabilityInput[],
  now: number,
): { changed: number; unchanged: number } {
  return recordChanges(
    database,
    statements(database),
    observations,
    {
      key: (observation) => ({ account, ...observation }),
      row: (observation) => ({ account, ...observation }),
      same: (previous, observation) => observedFields.every((field) => previous[field] === observation[field]),
    },
    now,
  );
}

/** The current figures of every GPU type, product and data center of an account. */
export function latestGpuAvailability(database: Database, account: string): GpuAvailabilityRecord[] {
  return latestAvailability(database)
    .all({ account })
    .map((entry) => entry.row);
}

// Read by the idle rule's scarcity guard on every tick: prepared once per database.
const latestAvailability = perDatabase((database) =>
  database.db
    // SQLite takes the bare columns of a max() aggregate from the row holding the maximum.
    .select({ row: gpuAvailability, newest: sql`max(${gpuAvailability.sinceAt})` })
    .from(gpuAvailability)
    .where(eq(gpuAvailability.account, sql.placeholder('account')))
    .groupBy(gpuAvailability.gpuTypeId, gpuAvailability.product, gpuAvailability.dataCenterId)
    .prepare(),
);

/** Every change of one GPU type's figures, oldest first. */
export function gpuAvailabilityHistory(
  database: Database,
  key: { account: string; gpuTypeId: string; product: CatalogProduct; dataCenterId: string },
): GpuAvailabilityRecord[] {
  return database.db
    .select()
    .from(gpuAvailability)
    .where(
      and(
        eq(gpuAvailability.account, key.account),
        eq(gpuAvailability.gpuTypeId, key.gpuTypeId),
        eq(gpuAvailability.product, key.product),
        eq(gpuAvailability.dataCenterId, key.dataCenterId),
      ),
    )
    .orderBy(asc(gpuAvailability.sinceAt))
    .all();
}

/** Latest description of each GPU type, CPU type and data center (no history: they rarely change). */
export const upsertGpuTypes = latestUpsert(gpuTypes, 'gpuTypeId');
export const upsertCpuTypes = latestUpsert(cpuTypes, 'cpuTypeId');
export const upsertDataCenters = latestUpsert(dataCenters, 'dataCenterId');

export type GpuTypeRecord = typeof gpuTypes.$inferSelect;
export type CpuTypeRecord = typeof cpuTypes.$inferSelect;
export type DataCenterRecord = typeof dataCenters.$inferSelect;
export type GpuTypeInput = LatestInput<typeof gpuTypes>;
export type CpuTypeInput = LatestInput<typeof cpuTypes>;
export type DataCenterInput = LatestInput<typeof dataCenters>;
