import { NoDataError } from '../api/index.js';
import { gpuStock, type StockCloud } from '../db/schema.js';
import { type GpuStockInput, recordGpuStock } from '../db/stock.js';
import type { Collector } from './collector.js';
import { collectResult } from './rejected-items.js';

/** Each cloud and the aliased `lowestPrice` field that carries it in the one stock query. */
const CLOUDS: ReadonlyArray<{ cloud: StockCloud; field: 'secure' | 'community' }> = [
  { cloud: 'SECURE', field: 'secure' },
  { cloud: 'COMMUNITY', field: 'community' },
];

const STOCK_LIST = { key: 'gpuTypes', one: 'GPU type', many: 'GPU types', kept: 'its stock kept as last read' };

/**
 * The one GraphQL collector: only `gpuTypes.lowestPrice` has the stock status and the GPU counts
 * one Pod could get now. Once GraphQL is retired or turned off, the run is `no_data`. A GPU type
 * the schema rejects keeps its last stored stock, and the run names it.
 */
export const stockCollector: Collector<'stock'> = {
  name: 'stock',
  feeds: [gpuStock],
  async collect(ctx) {
    if (!ctx.config.api.graphql.enabled) {
      throw new NoDataError('gpu stock', 'GraphQL is disabled (api.graphql.enabled: false)');
    }
    const gpuTypes = await ctx.api.graphql.gpuTypesStock({ gpuCount: 1 }, { signal: ctx.signal });
    const observations: GpuStockInput[] = gpuTypes.items.flatMap((gpu) =>
      CLOUDS.map(({ cloud, field }) => ({
        gpuTypeId: gpu.id,
        cloud,
        stockStatus: gpu[field]?.stockStatus ?? null,
        availableGpuCounts: gpu[field]?.availableGpuCounts ?? [],
        uninterruptablePrice: gpu[field]?.uninterruptablePrice ?? null,
      })),
    );
    const { changed } = await recordGpuStock(ctx.db, ctx.account, observations, ctx.now);
    return collectResult(changed, [gpuTypes.rejected, STOCK_LIST]);
  },
};
