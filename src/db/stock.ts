import { recordChanges } from './change-history.js';
import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import { gpuStock, type StockCloud } from './schema.js';
import { perDatabase, placeholdersFor, rowWriter } from './statements.js';

export type GpuStockRecord = typeof gpuStock.$inferSelect;

/** Stock of one GPU type in one cloud, as GraphQL `lowestPrice` reports it. */
export interface GpuStockInput {
  gpuTypeId: string;
  cloud: StockCloud;
  stockStatus: string | null;
  availableGpuCounts: number[];
  uninterruptablePrice: number | null;
}

const statements = perDatabase((database) => ({
  // SQLite takes the bare columns of a max() aggregate from the row holding the maximum.
  // Plain rows, the JSON column decoded by hand: every stock poll and capacity scrape reads them.
  latest: database.sqlite.prepare<
    [string],
    Omit<GpuStockRecord, 'availableGpuCounts'> & { availableGpuCounts: string }
  >(
    `SELECT account, gpu_type_id AS gpuTypeId, cloud, stock_status AS stockStatus,
       available_gpu_counts AS availableGpuCounts, uninterruptable_price AS uninterruptablePrice,
       max(since_at) AS sinceAt, last_seen_at AS lastSeenAt
     FROM gpu_stock WHERE account = ? GROUP BY gpu_type_id, cloud ORDER BY gpu_type_id, cloud`,
  ),
  touch: database.sqlite.prepare<[number, string, string, string, number]>(
    `UPDATE gpu_stock SET last_seen_at = max(last_seen_at, ?)
     WHERE account = ? AND gpu_type_id = ? AND cloud = ? AND since_at = ?`,
  ),
  insert: rowWriter<typeof gpuStock.$inferInsert>(
    database,
    database.db.insert(gpuStock).values(placeholdersFor(gpuStock)),
  ),
}));

function sameStock(previous: GpuStockRecord, observed: GpuStockInput): boolean {
  return (
    previous.stockStatus === observed.stockStatus &&
    previous.uninterruptablePrice === observed.uninterruptablePrice &&
    JSON.stringify(previous.availableGpuCounts) === JSON.stringify(observed.availableGpuCounts)
  );
}

const keyOf = (row: { gpuTypeId: string; cloud: string }) => `${row.gpuTypeId}\u0000${row.cloud}`;

/** Records one stock poll with change-only history (see recordChanges). */
export async function recordGpuStock(
  database: Database,
  account: string,
  observations: readonly GpuStockInput[],
  now: number,
): Promise<{ changed: number; unchanged: number }> {
  const s = statements(database);
  return recordChanges<GpuStockInput, GpuStockRecord>(
    database,
    {
      touch: (row, at) => s.touch.run(at, row.account, row.gpuTypeId, row.cloud, row.sinceAt),
      insert: s.insert,
    },
    () => new Map(latestGpuStockSync(database, account).map((row) => [keyOf(row), row])),
    observations,
    { key: keyOf, row: (observation) => ({ account, ...observation }), same: sameStock },
    now,
  );
}

/** The current stock of every GPU type and cloud of an account. */
export const latestGpuStock = outsideTransaction(latestGpuStockSync);

function latestGpuStockSync(database: Database, account: string): GpuStockRecord[] {
  return statements(database)
    .latest.all(account)
    .map((row) => ({ ...row, availableGpuCounts: JSON.parse(row.availableGpuCounts) as number[] }));
}
