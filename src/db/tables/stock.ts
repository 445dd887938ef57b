import { integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { accountColumn, oneOf } from './columns.js';

export const stockClouds = ['SECURE', 'COMMUNITY'] as const;
export type StockCloud = (typeof stockClouds)[number];

/**
 * GPU stock from GraphQL `gpuTypes.lowestPrice` (REST v2 has no stock status and no GPU counts
 * available now), with change-only history like gpu_availability: a new row when a figure
 * changes, otherwise `last_seen_at` moves.
 */
export const gpuStock = sqliteTable(
  'gpu_stock',
  {
    account: accountColumn(),
    gpuTypeId: text('gpu_type_id').notNull(),
    cloud: text('cloud', { enum: stockClouds }).notNull(),
    /** As reported: High, Medium, Low, None (clients also meet "Out" and ""); null when absent. */
    stockStatus: text('stock_status'),
    /** The GPU counts one Pod could get now, e.g. [1, 2, 4]; [] when none. */
    availableGpuCounts: text('available_gpu_counts', { mode: 'json' }).$type<number[]>().notNull(),
    /** USD per hour for one on-demand GPU at the cheapest offer. */
    uninterruptablePrice: real('uninterruptable_price'),
    sinceAt: integer('since_at').notNull(),
    lastSeenAt: integer('last_seen_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.account, t.gpuTypeId, t.cloud, t.sinceAt] }),
    oneOf('gpu_stock', 'cloud', stockClouds),
  ],
);
