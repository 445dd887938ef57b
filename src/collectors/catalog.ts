import type { CpuType, DataCenter, GpuType } from '../api/schemas.js';
import { type GpuAvailabilityInput, type GpuAvailabilityRecord, storeCatalogPoll } from '../db/catalog.js';
import { type CatalogProduct, cpuTypes, dataCenters, gpuAvailability, gpuTypes } from '../db/schema.js';
import type { Collector } from './collector.js';
import { fetchAll } from './fetch-all.js';
import { collectResult } from './rejected-items.js';

/** RunPod's catalog carries a placeholder GPU type with this id; official clients drop it too. */
const SENTINEL_GPU_ID = 'unknown';

type CpuProduct = 'POD' | 'SERVERLESS';

const KEPT = 'kept as last read';
const CPU_LIST = { key: 'cpus', one: 'CPU type', many: 'CPU types', kept: KEPT };
const DATA_CENTER_LIST = { key: 'dataCenters', one: 'data center', many: 'data centers', kept: KEPT };
const gpuList = (product: CatalogProduct) => ({
  key: 'gpus',
  one: `GPU type of the ${product} list`,
  many: `GPU types of the ${product} list`,
  kept: KEPT,
});

/**
 * GPU types with availability and prices per configured product, globally and per data center,
 * plus CPU types and data centers. Availability and prices keep change-only history, so a year
 * of polls costs a row per change.
 */
export const catalogCollector: Collector<'catalog'> = {
  name: 'catalog',
  feeds: [cpuTypes, dataCenters, gpuAvailability, gpuTypes],
  async collect(ctx) {
    const { products } = ctx.config.collectors.catalog;
    const cpuProducts = products.filter((product): product is CpuProduct => product !== 'CLUSTER');
    const [gpuLists, cpus, dataCenters] = await fetchAll(ctx.signal, [
      (signal) =>
        fetchAll(
          signal,
          products.map((product) => async (signal: AbortSignal) => ({
            product,
            gpus: await ctx.api.rest.listGpuTypes({ products: [product] }, { signal }),
          })),
        ),
      (signal) =>
        ctx.api.rest.listCpuTypes(cpuProducts.length > 0 ? { products: cpuProducts } : { includeAvailability: false }, {
          signal,
        }),
      (signal) => ctx.api.rest.listDataCenters({}, { signal }),
    ]);

    const gpusById = new Map<string, GpuType>();
    for (const { gpus } of gpuLists) {
      for (const gpu of gpus.items) if (gpu.id !== SENTINEL_GPU_ID) gpusById.set(gpu.id, gpu);
    }
    const observed = gpuLists.flatMap(({ product, gpus }) =>
      gpus.items.filter((gpu) => gpu.id !== SENTINEL_GPU_ID).flatMap((gpu) => availabilityRows(product, gpu)),
    );
    const rows = await storeCatalogPoll(ctx.db, {
      account: ctx.account,
      gpuTypes: [...gpusById.values()].map(gpuTypeRow),
      cpuTypes: cpus.items.map(cpuTypeRow),
      dataCenters: dataCenters.items.map(dataCenterRow),
      observed,
      // Judged on the figures stored when the poll is written, in its transaction.
      vanished: (stored) => vanishedFromDataCenters(stored, observed),
      now: ctx.now,
    });
    // An item the schema rejects is left as last stored (its availability is not taken for gone).
    return collectResult(
      rows,
      ...gpuLists.map(({ product, gpus }) => [gpus.rejected, gpuList(product)] as const),
      [cpus.rejected, CPU_LIST],
      [dataCenters.rejected, DATA_CENTER_LIST],
    );
  },
};

/** The global figure (dataCenterId '') and one row per data center listing the type. */
function availabilityRows(product: CatalogProduct, gpu: GpuType): GpuAvailabilityInput[] {
  const global: GpuAvailabilityInput = {
    gpuTypeId: gpu.id,
    product,
    dataCenterId: '',
    availability: gpu.availability ?? null,
    priceSecure: gpu.price.secure,
    priceCommunity: gpu.price.community,
    priceServerless: gpu.price.serverless ?? null,
    maxCountSecure: gpu.maxCount.secure,
    maxCountCommunity: gpu.maxCount.community,
  };
  // Prices and counts are per type, not per place: data-center rows carry availability only.
  const perDataCenter = (gpu.dataCenters ?? []).map((dc) => ({
    ...nullFigures(gpu.id, product, dc.id),
    availability: dc.availability,
  }));
  return [global, ...perDataCenter];
}

/**
 * A data center drops out of a GPU type's list when the type runs out there (the list names
 * only where it is offered): its history records NONE, and while it stays out its NONE row is
 * seen again at each poll, so its last level never goes stale.
 */
function vanishedFromDataCenters(
  stored: readonly GpuAvailabilityRecord[],
  observed: readonly GpuAvailabilityInput[],
): GpuAvailabilityInput[] {
  const seen = new Set(observed.map((row) => `${row.gpuTypeId}\u0000${row.product}\u0000${row.dataCenterId}`));
  const polled = new Set(observed.map((row) => `${row.gpuTypeId}\u0000${row.product}`));
  return stored
    .filter((row) => row.dataCenterId !== '')
    .filter((row) => polled.has(`${row.gpuTypeId}\u0000${row.product}`))
    .filter((row) => !seen.has(`${row.gpuTypeId}\u0000${row.product}\u0000${row.dataCenterId}`))
    .map((row) => ({ ...nullFigures(row.gpuTypeId, row.product, row.dataCenterId), availability: 'NONE' }));
}

function nullFigures(gpuTypeId: string, product: CatalogProduct, dataCenterId: string): GpuAvailabilityInput {
  return {
    gpuTypeId,
    product,
    dataCenterId,
    availability: null,
    priceSecure: null,
    priceCommunity: null,
    priceServerless: null,
    maxCountSecure: null,
    maxCountCommunity: null,
  };
}

function gpuTypeRow(gpu: GpuType) {
  return { gpuTypeId: gpu.id, name: gpu.name, memoryGb: gpu.memory, pool: gpu.pool, manufacturer: gpu.manufacturer };
}

function cpuTypeRow(cpu: CpuType) {
  return {
    cpuTypeId: cpu.id,
    name: cpu.name,
    groupName: cpu.group,
    vcpuMin: cpu.vcpu.min,
    vcpuMax: cpu.vcpu.max,
    ramGbPerVcpu: cpu.ramGbPerVcpu,
    priceSecurePerVcpu: cpu.price.securePerVcpu,
    priceServerlessPerVcpu: cpu.price.serverlessPerVcpu,
    availability: cpu.availability ?? null,
  };
}

function dataCenterRow(dc: DataCenter) {
  return {
    dataCenterId: dc.id,
    name: dc.name,
    region: dc.region,
    globalNetwork: dc.globalNetwork,
    networkVolumeTypes: dc.networkVolumeTypes,
    compliance: dc.compliance,
  };
}
