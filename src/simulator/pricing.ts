import { MACHINE_HELD } from './pod-lifecycle.js';
import type { PodState } from './pod-view.js';
import type { ScenarioEndpoint, ScenarioVolume, WorkerLoad } from './scenario.js';
import { piecesOf } from './timeline.js';
import type { PodStatus } from './v2-types.js';

/**
 * What each resource costs per hour, as piecewise-constant rates. Storage prices are RunPod's
 * published ones (docs: pods/pricing, get-started/billing-information), per GB-month:
 * container disk $0.10 while the Pod runs; volume disk $0.10 running and $0.20 stopped;
 * network volumes $0.07 for the first TB and $0.05 beyond. RunPod publishes no price for
 * HIGH_PERFORMANCE network volumes; $0.14 is our assumption. A month is 730 hours.
 */
const HOURS_PER_MONTH = 730;
const CONTAINER_DISK_GB_MONTH = 0.1;
const VOLUME_RUNNING_GB_MONTH = 0.1;
const VOLUME_STOPPED_GB_MONTH = 0.2;
const NETWORK_STANDARD_GB_MONTH = 0.07;
const NETWORK_STANDARD_BEYOND_TB_GB_MONTH = 0.05;
const NETWORK_HIGH_PERFORMANCE_GB_MONTH = 0.14;

export type BillingKind = 'pods' | 'serverless' | 'network_volumes' | 'clusters' | 'endpoints';

export interface RatePiece {
  fromMs: number;
  toMs: number;
  /** USD per hour. */
  perHour: number;
}

/** One amount field of one resource, e.g. the diskAmount of pod-1. */
export interface BillingLine {
  kind: BillingKind;
  /** The resource the records are keyed by: podId, serverlessId, networkVolumeId, clusterId. */
  id: string;
  field: string;
  pieces: RatePiece[];
}

/** A Pod's compute and disk lines in [fromMs, toMs); cluster members bill to their cluster. */
export function podLines({ spec, lifecycle }: PodState, fromMs: number, toMs: number): BillingLine[] {
  const statuses = piecesOf<PodStatus>(lifecycle.history, fromMs, toMs, 'TERMINATED');
  const kind: BillingKind = spec.cluster ? 'clusters' : 'pods';
  const id = spec.cluster ? spec.cluster.id : spec.id;
  const computeField = spec.cpu && !spec.cluster ? 'cpuAmount' : 'gpuAmount';
  const compute: RatePiece[] = [];
  const disk: RatePiece[] = [];
  for (const { fromMs: from, toMs: to, value: status } of statuses) {
    const held = MACHINE_HELD.has(status);
    if (held) compute.push({ fromMs: from, toMs: to, perHour: spec.cost });
    const diskPerMonth = diskGbMonth(spec.containerDiskGb, spec.volumeGb ?? 0, status);
    if (diskPerMonth > 0) disk.push({ fromMs: from, toMs: to, perHour: diskPerMonth / HOURS_PER_MONTH });
  }
  return [
    { kind, id, field: computeField, pieces: compute },
    { kind, id, field: 'diskAmount', pieces: disk },
  ];
}

function diskGbMonth(containerGb: number, volumeGb: number, status: PodStatus): number {
  if (MACHINE_HELD.has(status)) return containerGb * CONTAINER_DISK_GB_MONTH + volumeGb * VOLUME_RUNNING_GB_MONTH;
  if (status === 'EXITED' || status === 'ERROR') return volumeGb * VOLUME_STOPPED_GB_MONTH;
  return 0;
}

/** A network volume bills from its creation, by size and tier. */
export function volumeLine(volume: ScenarioVolume, fromMs: number, toMs: number): BillingLine {
  const from = Math.max(fromMs, volume.createdAtMs);
  const highPerformance = volume.type === 'HIGH_PERFORMANCE';
  const perMonth = highPerformance
    ? volume.size * NETWORK_HIGH_PERFORMANCE_GB_MONTH
    : Math.min(volume.size, 1000) * NETWORK_STANDARD_GB_MONTH +
      Math.max(0, volume.size - 1000) * NETWORK_STANDARD_BEYOND_TB_GB_MONTH;
  return {
    kind: 'network_volumes',
    id: volume.id,
    field: highPerformance ? 'highPerformanceAmount' : 'standardAmount',
    pieces: from < toMs ? [{ fromMs: from, toMs, perHour: perMonth / HOURS_PER_MONTH }] : [],
  };
}

export const NO_WORKERS: WorkerLoad = { running: 0, idle: 0, initializing: 0, throttled: 0, unhealthy: 0 };

/** Workers that hold a GPU are billed; a THROTTLED worker waits for one and is not. */
export function billedWorkers(load: WorkerLoad): number {
  return load.running + load.idle + load.initializing + load.unhealthy;
}

export function endpointLine(endpoint: ScenarioEndpoint, fromMs: number, toMs: number): BillingLine {
  const pieces = piecesOf(endpoint.load, fromMs, toMs, NO_WORKERS)
    .map(({ fromMs: from, toMs: to, value }) => ({
      fromMs: from,
      toMs: to,
      perHour: billedWorkers(value) * endpoint.pricePerWorkerHour,
    }))
    .filter((piece) => piece.perHour > 0);
  return { kind: 'serverless', id: endpoint.id, field: endpoint.gpu ? 'gpuAmount' : 'cpuAmount', pieces };
}
