import { collectorsFeeding } from '../collectors/index.js';
import { watchedGpuTypeIds } from '../config/sections/capacity.js';
import { type GpuAvailabilityRecord, latestGpuAvailability } from '../db/catalog.js';
import { gpuTypeNames } from '../db/names.js';
import { gpuAvailability, gpuStock, gpuTypes } from '../db/schema.js';
import { type GpuStockRecord, latestGpuStock } from '../db/stock.js';
import { accountGauge, gaugeTable } from './account-series.js';
import { type MetricsContext, refreshedAccounts } from './source.js';

/** Availability and stock levels as numbers, so a graph goes up when a GPU comes back. */
const LEVELS: Readonly<Record<string, number>> = { none: 0, out: 0, low: 1, medium: 2, high: 3 };

/** NONE=0, LOW=1, MEDIUM=2, HIGH=3 (GraphQL's High/Out in any case); undefined for anything else. */
export function availabilityLevel(value: string | null): number | undefined {
  return value === null ? undefined : LEVELS[value.toLowerCase()];
}

/** Rows of the account's latest poll only, so a GPU type no longer polled drops out, not goes stale. */
function latestPollOf<T extends { lastSeenAt: number }>(rows: T[]): T[] {
  const newest = Math.max(...rows.map((row) => row.lastSeenAt));
  return rows.filter((row) => row.lastSeenAt === newest);
}

const PRICES = [
  ['secure', 'priceSecure'],
  ['community', 'priceCommunity'],
  ['serverless', 'priceServerless'],
] as const;

/** GPU availability, list prices and stock, set after each run of the collector they come from. */
export function registerCapacityMetrics(context: MetricsContext): void {
  const { registry } = context;
  const fillAvailability = gaugeTable<GpuAvailabilityRecord>(registry, [
    {
      name: 'podwarden_gpu_availability',
      help: 'Availability of the GPU type for the product as the catalog last reported it, NONE=0, LOW=1, MEDIUM=2, HIGH=3; data_center_id is empty for the global figure; absent when the catalog gave none.',
      labelNames: ['account', 'gpu_type_id', 'product', 'data_center_id'],
      series: (row, set) => {
        const level = availabilityLevel(row.availability);
        const { account, gpuTypeId: gpu_type_id, product, dataCenterId: data_center_id } = row;
        if (level !== undefined) set({ account, gpu_type_id, product, data_center_id }, level);
      },
    },
    {
      name: 'podwarden_gpu_price_dollars_per_hour',
      help: 'List price of one GPU of the type per hour by rate (secure or community cloud Pods, serverless pool) as the catalog last reported it; absent for a rate the catalog gave none for.',
      labelNames: ['account', 'gpu_type_id', 'product', 'rate'],
      series: (row, set) => {
        if (row.dataCenterId !== '') return;
        for (const [rate, field] of PRICES) {
          const value = row[field];
          if (value !== null)
            set({ account: row.account, gpu_type_id: row.gpuTypeId, product: row.product, rate }, value);
        }
      },
    },
  ]);
  const stockLabels = (row: GpuStockRecord) => ({ account: row.account, gpu_type_id: row.gpuTypeId, cloud: row.cloud });
  const fillStock = gaugeTable<GpuStockRecord>(registry, [
    {
      name: 'podwarden_gpu_stock',
      help: 'Stock status of the GPU type in the cloud for a one-GPU Pod from GraphQL, None=0, Low=1, Medium=2, High=3; absent when GraphQL gave no status.',
      labelNames: ['account', 'gpu_type_id', 'cloud'],
      series: (row, set) => {
        const level = availabilityLevel(row.stockStatus);
        if (level !== undefined) set(stockLabels(row), level);
      },
    },
    {
      name: 'podwarden_gpu_stock_max_gpus',
      help: 'The largest GPU count of the type one Pod in the cloud could get now according to GraphQL, 0 when none; absent before the stock collector ran.',
      labelNames: ['account', 'gpu_type_id', 'cloud'],
      series: (row, set) => set(stockLabels(row), Math.max(0, ...row.availableGpuCounts)),
    },
  ]);

  const watched = accountGauge(registry, {
    name: 'podwarden_capacity_watched',
    help: "Always 1 for a GPU type and product on the capacity watch list, a watch by name resolved through the account's catalog; absent for the rest.",
    labelNames: ['account', 'gpu_type_id', 'product'],
  });

  context.refreshOn(collectorsFeeding(gpuAvailability, gpuTypes), async (at) => {
    const { db } = context.source;
    for (const account of refreshedAccounts(context.config, at)) {
      fillAvailability(latestPollOf(await latestGpuAvailability(db, account)), account);
      const names = await gpuTypeNames(db, account);
      watched.clear(account);
      for (const watch of context.config.capacity.watch) {
        if ((watch.account ?? account) !== account) continue;
        for (const id of watchedGpuTypeIds(watch, names)) {
          watched.set(account, { account, gpu_type_id: id, product: watch.product }, 1);
        }
      }
    }
  });
  context.refreshOn(collectorsFeeding(gpuStock), async (at) => {
    for (const account of refreshedAccounts(context.config, at)) {
      fillStock(latestPollOf(await latestGpuStock(context.source.db, account)), account);
    }
  });
}
