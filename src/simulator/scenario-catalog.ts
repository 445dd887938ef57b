import type { RawGpuType, RawScenario } from './scenario-schema.js';
import { type AvailabilityLevel, VOLUME_TYPES } from './v2-types.js';

/** Where the normalizer reports a problem it finds (a path in the file and what is wrong). */
export type Report = (path: string, message: string) => void;

export type Catalog = ReturnType<typeof normalizeCatalog>;
export type ScenarioGpuType = ReturnType<typeof gpuTypeOf>;
export type ScenarioCpuType = ReturnType<typeof cpuFlavor>;
export type ScenarioDataCenter = ReturnType<typeof dataCenterOf>;

/** RunPod's CPU flavors, used when a scenario names none (prices from the public catalog). */
const DEFAULT_CPUS = [
  cpuFlavor('cpu3c', 'Compute-Optimized', 'Gen 3', 2, 0.03, 0.04),
  cpuFlavor('cpu3g', 'General Purpose', 'Gen 3', 4, 0.04, 0.05),
  cpuFlavor('cpu5c', 'Compute-Optimized', 'Gen 5', 2, 0.04, 0.05),
];

function cpuFlavor(id: string, name: string, group: string, ram: number, pod: number, sls: number) {
  return {
    id,
    name,
    group,
    vcpu: { min: 2, max: 32 },
    ramGbPerVcpu: ram,
    price: { securePerVcpu: pod, serverlessPerVcpu: sls },
    availability: 'HIGH' as AvailabilityLevel,
  };
}

export function normalizeCatalog(raw: RawScenario, startMs: number, report: Report) {
  const dataCenters = raw.catalog.dataCenters
    ? raw.catalog.dataCenters.map((dc) => dataCenterOf(dc.id, dc))
    : referencedDataCenters(raw).map((id) => dataCenterOf(id, { id, name: id }));
  const dcIds = dataCenters.map((dc) => dc.id);
  const gpus = raw.catalog.gpus.map((gpu, index) => gpuTypeOf(gpu, `catalog.gpus[${index}]`, startMs, dcIds, report));
  const cpus = raw.catalog.cpus
    ? raw.catalog.cpus.map((cpu): ScenarioCpuType => {
        const fallback = DEFAULT_CPUS.find((known) => known.id === cpu.id) ?? DEFAULT_CPUS[0];
        return {
          id: cpu.id,
          name: cpu.name ?? fallback?.name ?? cpu.id,
          group: cpu.group ?? fallback?.group ?? 'Gen 3',
          vcpu: cpu.vcpu ?? { min: 2, max: 32 },
          ramGbPerVcpu: cpu.ramGbPerVcpu ?? fallback?.ramGbPerVcpu ?? 2,
          price: cpu.price ?? fallback?.price ?? { securePerVcpu: 0.04, serverlessPerVcpu: 0.05 },
          availability: cpu.availability ?? 'HIGH',
        };
      })
    : DEFAULT_CPUS;
  return { gpus, dataCenters, cpus };
}

function gpuTypeOf(gpu: RawGpuType, path: string, startMs: number, dcIds: string[], report: Report) {
  for (const dc of gpu.dataCenters ?? []) {
    if (!dcIds.includes(dc)) report(`${path}.dataCenters`, `unknown data center "${dc}"`);
  }
  const manufacturer =
    gpu.manufacturer ?? (gpu.id.startsWith('AMD') ? 'AMD' : gpu.id.startsWith('NVIDIA') ? 'NVIDIA' : 'UNKNOWN');
  const availability =
    typeof gpu.availability === 'string'
      ? [{ atMs: startMs, value: gpu.availability }]
      : gpu.availability.map((entry) => ({ atMs: startMs + entry.at, value: entry.value })).sort(byTime);
  const { secure, community, serverless } = gpu.price;
  return {
    id: gpu.id,
    name: gpu.name,
    memory: gpu.memory,
    manufacturer,
    pool: gpu.pool ?? null,
    price: { secure, community, ...(serverless !== undefined && { serverless }) },
    maxCount: gpu.maxCount ?? { secure: 8, community: 8 },
    availability,
    dataCenterIds: gpu.dataCenters ?? dcIds,
    cudaVersions: gpu.cudaVersions ?? (manufacturer === 'NVIDIA' ? ['12.4', '12.6', '12.8'] : []),
  };
}

export function byTime<T extends { atMs: number }>(a: T, b: T): number {
  return a.atMs - b.atMs;
}

function referencedDataCenters(raw: RawScenario): string[] {
  const ids = new Set<string>();
  const pods = [...raw.pods, ...raw.clusters.flatMap((cluster) => cluster.pods)];
  for (const pod of pods) if (pod.dataCenterId) ids.add(pod.dataCenterId);
  for (const volume of raw.volumes) ids.add(volume.dataCenter);
  for (const endpoint of raw.endpoints) for (const id of endpoint.dataCenterIds) ids.add(id);
  for (const gpu of raw.catalog.gpus) for (const id of gpu.dataCenters ?? []) ids.add(id);
  return [...ids];
}

type RawDc = NonNullable<RawScenario['catalog']['dataCenters']>[number];

const REGION_OF_PREFIX: Record<string, string> = {
  US: 'NORTH_AMERICA',
  CA: 'NORTH_AMERICA',
  EU: 'EUROPE',
  EUR: 'EUROPE',
  AP: 'ASIA',
  OC: 'OCEANIA',
};

/** RunPod's ids say where they are: `US-KS-2`, `EU-RO-1`, `EUR-IS-1`, `CA-MTL-1`, `AP-JP-1`. */
function dataCenterOf(id: string, dc: Pick<RawDc, 'name'> & Partial<RawDc>) {
  const [first = '', second = ''] = id.toUpperCase().split('-');
  const country = dc.country ?? (first === 'US' || first === 'CA' || second.length !== 2 ? first.slice(0, 2) : second);
  return {
    id,
    name: dc.name,
    region: dc.region ?? REGION_OF_PREFIX[first] ?? 'UNKNOWN',
    country: /^[A-Z]{2}$/.test(country) ? country : 'US',
    globalNetwork: dc.globalNetwork ?? false,
    networkVolumeTypes: dc.networkVolumeTypes ?? [...VOLUME_TYPES],
    compliance: dc.compliance ?? ([] as string[]),
  };
}
