import { byTime, type Catalog, type Report } from './scenario-catalog.js';
import type { RawEndpoint, RawPod, RawUtilization } from './scenario-schema.js';
import type { Timeline } from './timeline.js';

export type ScenarioPod = ReturnType<typeof normalizePod>;
/** What a RUNNING Pod reports; null in its timeline is a telemetry gap (RUNNING, runtime null). */
export type Utilization = NonNullable<ReturnType<typeof utilizationOf>>;
export type ScenarioEndpoint = ReturnType<typeof normalizeEndpoint>;
export type WorkerLoad = ScenarioEndpoint['load'][number]['value'];

export interface PodContext {
  startMs: number;
  catalog: Catalog;
  volumeIds: Set<string>;
  report: Report;
}

/** A repeating entry expands into at most this many; more is surely a typo in `every`. */
const MAX_REPEATS = 100_000;

export function normalizePod(
  raw: RawPod,
  path: string,
  ctx: PodContext,
  cluster?: { id: string; rank: number; role?: string },
) {
  const { startMs, catalog, report } = ctx;
  if (!raw.gpu && !raw.cpu) report(path, 'a Pod needs gpu (GPU Pod) or cpu (CPU Pod)');
  if (raw.gpu && raw.cpu) report(path, 'a Pod has gpu or cpu, not both');
  const gpuType = raw.gpu && catalog.gpus.find((gpu) => gpu.id === raw.gpu?.id);
  if (raw.gpu && !gpuType) report(`${path}.gpu.id`, `unknown GPU type "${raw.gpu.id}" (add it to catalog.gpus)`);
  const cpuType = raw.cpu && catalog.cpus.find((cpu) => cpu.id === raw.cpu?.id);
  if (raw.cpu && !cpuType) report(`${path}.cpu.id`, `unknown CPU flavor "${raw.cpu.id}" (add it to catalog.cpus)`);
  if (raw.dataCenterId && !catalog.dataCenters.some((dc) => dc.id === raw.dataCenterId)) {
    report(`${path}.dataCenterId`, `unknown data center "${raw.dataCenterId}" (add it to catalog.dataCenters)`);
  }
  if (raw.networkVolumeId && !ctx.volumeIds.has(raw.networkVolumeId)) {
    report(`${path}.networkVolumeId`, `unknown network volume "${raw.networkVolumeId}"`);
  }
  if (raw.networkVolumeId && raw.volumeGb !== undefined) {
    report(path, 'a Pod mounts a persistent volume (volumeGb) or a network volume, not both');
  }

  const gpuCount = raw.gpu?.count ?? 0;
  const listPrice = gpuType
    ? (raw.cloud === 'SECURE' ? gpuType.price.secure : gpuType.price.community) * gpuCount
    : cpuType && raw.cpu
      ? cpuType.price.securePerVcpu * raw.cpu.vcpuCount
      : 0;
  const times = podTimes(raw, path, startMs, report);
  const isGpu = raw.gpu !== undefined;

  return {
    id: raw.id,
    name: raw.name,
    /** USD per hour while the Pod holds its machine. */
    cost: raw.cost ?? Math.round(listPrice * 1000) / 1000,
    /** Status at start. */
    status: raw.status,
    /** Where every start of the Pod stops short of RUNNING (undefined: it boots). */
    stuck: raw.stuck,
    ...times,
    dataCenterId: raw.dataCenterId ?? catalog.dataCenters[0]?.id ?? null,
    env: raw.env,
    containerDiskGb: raw.containerDiskGb,
    image:
      raw.image ?? (isGpu ? 'runpod/pytorch:2.8.0-py3.11-cuda12.8.1-cudnn-devel-ubuntu22.04' : 'runpod/base:0.7.0-cpu'),
    ports: raw.ports ?? ['8888/http', '22/tcp'],
    cloud: raw.cloud,
    locked: raw.locked,
    cudaVersion: raw.cudaVersion !== undefined ? raw.cudaVersion : gpuType?.manufacturer === 'NVIDIA' ? '12.8' : null,
    template: raw.template,
    utilization: expand(raw.utilization, `${path}.utilization`, startMs, report, (entry, index) =>
      utilizationOf(entry, gpuCount, `${path}.utilization[${index}]`, report),
    ),
    events: eventsOf(raw, path, startMs, report),
    ...(raw.gpu && { gpu: { id: raw.gpu.id, count: raw.gpu.count } }),
    ...(raw.cpu && { cpu: { ...raw.cpu } }),
    ...(raw.volumeGb !== undefined && { volumeGb: raw.volumeGb }),
    ...(raw.networkVolumeId !== undefined && { networkVolumeId: raw.networkVolumeId }),
    ...(cluster && { cluster }),
  };
}

/** The owner's actions, from start on: the past is told by status, startedAt and stoppedAt. */
function eventsOf(raw: RawPod, path: string, startMs: number, report: Report) {
  raw.events.forEach((event, index) => {
    if (event.at < 0)
      report(
        `${path}.events[${index}].at`,
        'events happen from start on (describe the past with status, startedAt, stoppedAt)',
      );
  });
  return raw.events.map((event) => ({ atMs: startMs + event.at, action: event.action })).sort(byTime);
}

/** The past, as far as a scenario tells it: when the Pod was created, started and stopped. */
function podTimes(raw: RawPod, path: string, startMs: number, report: Report) {
  const { startedAt, stoppedAt } = raw;
  const past = raw.status === 'EXITED' || raw.status === 'ERROR' || raw.status === 'TERMINATED';
  if (raw.stuck === 'PROVISIONING' && raw.status === 'STARTING') {
    report(`${path}.stuck`, 'a Pod stuck in PROVISIONING never gets to STARTING (status is STARTING)');
  }
  if (raw.status === 'RUNNING' && startedAt !== undefined && startedAt > 0) {
    report(`${path}.startedAt`, 'a Pod RUNNING at start was started at or before start (0s or negative)');
  }
  if (stoppedAt !== undefined) {
    if (!past)
      report(`${path}.stoppedAt`, `only EXITED, ERROR or TERMINATED Pods have stopped (status is ${raw.status})`);
    if (startedAt === undefined)
      report(`${path}.stoppedAt`, 'needs startedAt (the Pod ran from startedAt to stoppedAt)');
    else if (stoppedAt < startedAt || stoppedAt > 0)
      report(`${path}.stoppedAt`, 'must lie between startedAt and start');
  }
  const startedAtMs =
    raw.status === 'RUNNING' ? startMs + (startedAt ?? 0) : startedAt === undefined ? undefined : startMs + startedAt;
  const earliest = Math.min(startMs, startedAtMs ?? startMs);
  const createdAtMs = raw.createdAt === undefined ? earliest : startMs + raw.createdAt;
  if (createdAtMs > earliest) report(`${path}.createdAt`, 'must not be after startedAt or start');
  return {
    createdAtMs,
    ...(startedAtMs === undefined ? {} : { startedAtMs }),
    ...(stoppedAt === undefined ? {} : { stoppedAtMs: startMs + stoppedAt }),
  };
}

function utilizationOf(entry: RawUtilization, gpuCount: number, path: string, report: Report) {
  if (entry.runtime === null) return null;
  const perGpu = (values: number | number[] | undefined, fallback: number, field: string): number[] => {
    if (Array.isArray(values)) {
      if (values.length !== gpuCount) report(`${path}.${field}`, `has ${values.length} values for ${gpuCount} GPUs`);
      return values;
    }
    return Array.from({ length: gpuCount }, () => values ?? fallback);
  };
  if (entry.gpu !== undefined && entry.gpus !== undefined) report(path, 'gpu (every GPU) or gpus (per GPU), not both');
  const memory = entry.memory ?? 0;
  return {
    gpus: perGpu(entry.gpus ?? entry.gpu, 0, 'gpus'),
    gpuMemory: perGpu(entry.gpuMemory, memory, 'gpuMemory'),
    cpu: entry.cpu ?? 0,
    memory,
  };
}

type Repeating = { at: number; every?: number | undefined; until?: number | undefined };

/** Turns entries (some repeating `every` … `until`) into a sorted timeline of absolute times. */
function expand<E extends Repeating, T>(
  entries: E[],
  path: string,
  startMs: number,
  report: Report,
  toValue: (entry: E, index: number) => T,
): Timeline<T> {
  const timeline: Timeline<T> = [];
  entries.forEach((entry, index) => {
    const value = toValue(entry, index);
    if ((entry.every === undefined) !== (entry.until === undefined)) {
      report(`${path}[${index}]`, 'every and until go together (repeat every X until Y)');
      return;
    }
    if (entry.every === undefined || entry.until === undefined) {
      timeline.push({ atMs: startMs + entry.at, value });
      return;
    }
    if ((entry.until - entry.at) / entry.every > MAX_REPEATS) {
      report(`${path}[${index}].every`, `repeats more than ${MAX_REPEATS} times before until`);
      return;
    }
    for (let at = entry.at; at < entry.until; at += entry.every) timeline.push({ atMs: startMs + at, value });
  });
  return timeline.sort(byTime);
}

export function normalizeEndpoint(raw: RawEndpoint, path: string, startMs: number, catalog: Catalog, report: Report) {
  if (!raw.gpu && !raw.cpu) report(path, 'an endpoint needs gpu (pools) or cpu');
  if (raw.workers.min > raw.workers.max) report(`${path}.workers`, 'min must not exceed max');
  const poolGpu = catalog.gpus.find(
    (gpu) => gpu.pool !== null && raw.gpu?.pools.includes(gpu.pool) && gpu.price.serverless !== undefined,
  );
  const cpuType = raw.cpu && catalog.cpus.find((cpu) => cpu.id === raw.cpu?.id);
  const listPrice =
    raw.gpu && poolGpu?.price.serverless !== undefined
      ? poolGpu.price.serverless * raw.gpu.count
      : cpuType && raw.cpu
        ? cpuType.price.serverlessPerVcpu * raw.cpu.vcpuCount
        : undefined;
  if (raw.pricePerWorkerHour === undefined && listPrice === undefined) {
    report(`${path}.pricePerWorkerHour`, 'required (no catalog GPU of these pools has a serverless price)');
  }
  const loadEntries = raw.load ?? [
    { at: raw.createdAt ?? 0, running: 0, idle: raw.workers.min, initializing: 0, throttled: 0, unhealthy: 0 },
  ];
  // Before the first entry the endpoint has no workers.
  const load = expand(loadEntries, `${path}.load`, startMs, report, (entry, index) => {
    const { running, idle, initializing, throttled, unhealthy } = entry;
    const value = { running, idle, initializing, throttled, unhealthy };
    const total = running + idle + initializing + throttled + unhealthy;
    if (total > raw.workers.max)
      report(`${path}.load[${index}]`, `${total} workers exceed workers.max ${raw.workers.max}`);
    return value;
  });
  return {
    id: raw.id,
    name: raw.name,
    workers: { ...raw.workers },
    pricePerWorkerHour: raw.pricePerWorkerHour ?? Math.round((listPrice ?? 0) * 10_000) / 10_000,
    load,
    dataCenterIds: raw.dataCenterIds,
    image: raw.image,
    version: raw.version,
    createdAtMs: Math.min(startMs + (raw.createdAt ?? 0), load[0]?.atMs ?? startMs),
    ...(raw.gpu && { gpu: { pools: raw.gpu.pools, count: raw.gpu.count } }),
    ...(raw.cpu && { cpu: { ...raw.cpu } }),
  };
}
