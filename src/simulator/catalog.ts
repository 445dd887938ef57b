import type { Scenario, ScenarioCpuType, ScenarioDataCenter, ScenarioGpuType } from './scenario.js';
import type { AvailabilityLevel } from './v2-types.js';

/** The v2 catalog records (GpuType, CpuType, DataCenter) with their availability expansions. */

export interface GpuAvailabilityQuery {
  products: string[];
  count: number;
  cloud: 'SECURE' | 'COMMUNITY';
  countryCodes?: string[];
  cudaVersions?: string[];
  minCudaVersion?: string;
}

type Catalog = Scenario['catalog'];

/** Data centers where a GPU type is offered, within the requested countries. */
export function offeredDataCenters(gpu: ScenarioGpuType, catalog: Catalog, countryCodes?: string[]) {
  return catalog.dataCenters.filter(
    (dc) => gpu.dataCenterIds.includes(dc.id) && (!countryCodes || countryCodes.includes(dc.country)),
  );
}

export function gpuRecord(
  gpu: ScenarioGpuType,
  catalog: Catalog,
  level: AvailabilityLevel,
  query?: GpuAvailabilityQuery,
): Record<string, unknown> {
  const record: Record<string, unknown> = {
    id: gpu.id,
    name: gpu.name,
    pool: gpu.pool,
    manufacturer: gpu.manufacturer,
    memory: gpu.memory,
    secure: gpu.maxCount.secure > 0,
    community: gpu.maxCount.community > 0,
    price: { ...gpu.price },
    maxCount: { ...gpu.maxCount },
  };
  if (!query) return record;
  const places = offeredDataCenters(gpu, catalog, query.countryCodes);
  const versions = gpu.cudaVersions.filter((version) => cudaMatches(version, query));
  const cudaFiltered = query.cudaVersions !== undefined || query.minCudaVersion !== undefined;
  const maxCount = query.cloud === 'SECURE' ? gpu.maxCount.secure : gpu.maxCount.community;
  const productOffered = query.products.some((product) => product !== 'SERVERLESS') || gpu.pool !== null;
  const available =
    productOffered && query.count <= maxCount && places.length > 0 && (!cudaFiltered || versions.length > 0);
  const availability = available ? level : 'NONE';
  record.availability = availability;
  if (availability !== 'NONE') record.dataCenters = places.map((dc) => named(dc, availability));
  if (gpu.cudaVersions.length > 0) {
    record.cudaVersions = versions.map((version) => ({ version, available: availability !== 'NONE' }));
  }
  return record;
}

function cudaMatches(version: string, query: GpuAvailabilityQuery): boolean {
  if (query.cudaVersions) return query.cudaVersions.includes(version);
  if (query.minCudaVersion) return compareVersions(version, query.minCudaVersion) >= 0;
  return true;
}

/** Numeric comparison of `major[.minor]`; a bare major `12` means 12.0. */
function compareVersions(a: string, b: string): number {
  const [aMajor = 0, aMinor = 0] = a.split('.').map(Number);
  const [bMajor = 0, bMinor = 0] = b.split('.').map(Number);
  return aMajor - bMajor || aMinor - bMinor;
}

export function cpuRecord(cpu: ScenarioCpuType, catalog: Catalog, vcpuCount?: number, withAvailability = false) {
  const record: Record<string, unknown> = {
    id: cpu.id,
    name: cpu.name,
    group: cpu.group,
    vcpu: { ...cpu.vcpu },
    ramGbPerVcpu: cpu.ramGbPerVcpu,
    price: { ...cpu.price },
  };
  if (!withAvailability) return record;
  const fits = vcpuCount === undefined || (vcpuCount >= cpu.vcpu.min && vcpuCount <= cpu.vcpu.max);
  const availability = fits ? cpu.availability : 'NONE';
  record.availability = availability;
  if (availability !== 'NONE' && catalog.dataCenters.length > 0) {
    record.dataCenters = catalog.dataCenters.map((dc) => named(dc, availability));
  }
  return record;
}

export function dataCenterRecord(
  dc: ScenarioDataCenter,
  catalog: Catalog,
  levelOf: (gpu: ScenarioGpuType) => AvailabilityLevel,
  include: { gpu: boolean; cpu: boolean },
) {
  const record: Record<string, unknown> = {
    id: dc.id,
    name: dc.name,
    region: dc.region,
    globalNetwork: dc.globalNetwork,
    networkVolumeTypes: [...dc.networkVolumeTypes],
    compliance: [...dc.compliance],
  };
  const gpus = catalog.gpus.filter((gpu) => gpu.dataCenterIds.includes(dc.id));
  if (include.gpu && gpus.length > 0) record.gpuAvailability = gpus.map((gpu) => named(gpu, levelOf(gpu)));
  if (include.cpu && catalog.cpus.length > 0) {
    record.cpuAvailability = catalog.cpus.map((cpu) => named(cpu, cpu.availability));
  }
  return record;
}

function named(item: { id: string; name: string }, availability: AvailabilityLevel) {
  return { id: item.id, name: item.name, availability };
}
