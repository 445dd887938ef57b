import { NoDataError } from '../api/index.js';
import type { StockCloud } from '../db/schema.js';
import { type GpuStockInput, recordGpuStock } from '../db/stock.js';
import type { Collector } from './collector.js';
import { fetchAll } from './fetch-all.js';

const CLOUDS: ReadonlyArray<{ cloud: StockCloud; secureCloud: boolean }> = [
  { cloud: 'SECURE', secureCloud: true },
  { cloud: 'COMMUNITY', secureCloud: false },
];

/**
 * The one GraphQL collector: REST v2 has neither the stock status per GPU count nor the GPU
 * counts one Pod could get now, and `gpuTypes.lowestPrice` has both. Once GraphQL is retired
 * (410/404) or turned off in the config, the run is `no_data` and nothing else is affected.
 */
export const stockCollector: Collector = {
  name: 'stock',
  async collect(ctx) {
    if (!ctx.config.api.graphql.enabled) {
      throw new NoDataError('gpu stock', 'GraphQL is disabled (api.graphql.enabled: false)');
    }
    const answers = await fetchAll(
      ctx.signal,
      CLOUDS.map(({ cloud, secureCloud }) => async (signal: AbortSignal) => ({
        cloud,
        gpuTypes: await ctx.api.graphql.gpuTypesStock({ gpuCount: 1, secureCloud }, { signal }),
      })),
    );
    const observations: GpuStockInput[] = answers.flatMap(({ cloud, gpuTypes }) =>
      gpuTypes.map((gpu) => ({
        gpuTypeId: gpu.id,
        cloud,
        stockStatus: gpu.lowestPrice?.stockStatus ?? null,
        availableGpuCounts: gpu.lowestPrice?.availableGpuCounts ?? [],
        uninterruptablePrice: gpu.lowestPrice?.uninterruptablePrice ?? null,
      })),
    );
    const { changed } = recordGpuStock(ctx.db, ctx.account, observations, ctx.now);
    return { rows: changed };
  },
};
