import { and, asc, eq, sql } from 'drizzle-orm';
import { recordChanges } from './change-history.js';
import type { Database } from './open.js';
import { gpuStock, type StockCloud } from './schema.js';
import { perDatabase, placeholdersFor } from './statements.js';

export type GpuStockRecord = typeof gpuStock.$inferSelect;

/** Stock of one GPU type in one cloud, as GraphQL `lowestPrice` reports it. */
export interface GpuStockInput {
  gpuTypeId: string;
  cloud: StockCloud;
  stockStatus: string | null;
  availableGpuCounts: number[];
  uninterruptablePrice: number | null;
}

const statements = perDatabase((database) => {
  const key = and(
    eq(gpuStock.account, sql.placeholder('account')),
    eq(gpuStock.gpuTypeId, sql.placeholder('gpuTypeId')),
    eq(gpuStock.cloud, sql.placeholder('cloud')),
  );
  return {
    latest: database.db.select().from(gpuStock).where(key).orderBy(sql`${gpuStock.sinceAt} DESC`).limit(1).prepare(),
    touch: database.db
      .update(gpuStock)
      .set({ lastSeenAt: sql`max(${gpuStock.lastSeenAt}, ${sql.placeholder('now')})` })
      .where(and(key, eq(gpuStock.sinceAt, sql.placeholder('sinceAt'))))
      .prepare(),
    insert: database.db.insert(gpuStock).values(placeholdersFor(gpuStock)).prepare(),
  };
});

function sameStock(previous: GpuStockRecord, observed: GpuStockInput): boolean {
  return (
    previous.stockStatus === observed.stockStatus &&
    previous.uninterruptablePrice === observed.uninterruptablePrice &&
    JSON.stringify(previous.availableGpuCounts) === JSON.stringify(observed.availableGpuCounts)
  );
}

/** Records one stock poll with change-only history (see recordChanges). */
export function recordGpuStock(
  database: Database,
  account: string,
  observations: readonly GpuStockInput[],
  now: number,
): { changed: number; unchanged: number } {
  const { latest, touch, insert } = statements(database);
  return recordChanges(
    database,
    { latest, touch, insert: (row: typeof gpuStock.$inferInsert) => insert.run(row) },
    observations,
    {
      key: (observation) => ({ account, gpuTypeId: observation.gpuTypeId, cloud: observation.cloud }),
      row: (observation) => ({ ...observation, account }),
      same: sameStock,
    },
    now,
  );
}

/** The current stock of every GPU type and cloud of an account. */
export function latestGpuStock(database: Database, account: string): GpuStockRecord[] {
  // SQLite takes the bare columns of a max() aggregate from the row holding the maximum.
  const rows = database.db
    .select({ row: gpuStock, newest: sql`max(${gpuStock.sinceAt})` })
    .from(gpuStock)
    .where(eq(gpuStock.account, account))
    .groupBy(gpuStock.gpuTypeId, gpuStock.cloud)
    .orderBy(gpuStock.gpuTypeId, gpuStock.cloud)
    .all();
  return rows.map((entry) => entry.row);
}

/** Every change of one GPU type's stock in one cloud, oldest first. */
export function gpuStockHistory(
  database: Database,
  key: { account: string; gpuTypeId: string; cloud: StockCloud },
): GpuStockRecord[] {
  return database.db
    .select()
    .from(gpuStock)
    .where(and(eq(gpuStock.account, key.account), eq(gpuStock.gpuTypeId, key.gpuTypeId), eq(gpuStock.cloud, key.cloud)))
    .orderBy(asc(gpuStock.sinceAt))
    .all();
}
