import { toIso } from '../clock.js';
import { directSshAt, hash, type PodState } from './pod-view.js';
import { billedWorkers, NO_WORKERS } from './pricing.js';
import type { Scenario, ScenarioCluster, ScenarioEndpoint, ScenarioVolume, WorkerLoad } from './scenario.js';
import { indexAt, valueAt } from './timeline.js';

/** Records of the v2 document for clusters, serverless endpoints and network volumes. */

export function clusterRecord(cluster: ScenarioCluster, members: PodState[], t: number) {
  const present = members.filter((member) => member.lifecycle.existsAt(t));
  const byStatus: Record<string, number> = {};
  for (const member of present) {
    const status = member.lifecycle.statusAt(t);
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  }
  const first = cluster.pods[0];
  const placed = present.find((member) => member.spec.dataCenterId !== null)?.spec.dataCenterId;
  const primary = present.find((member) => member.spec.cluster?.rank === 0);
  // Only what the record shows of its primary, not the whole Pod record (with its runtime).
  const direct = primary && directSshAt(primary, t);
  return {
    id: cluster.id,
    name: cluster.name,
    type: cluster.type,
    compute: {
      gpuTypeId: first?.gpu?.id ?? 'unknown',
      gpuCountPerPod: first?.gpu?.count ?? 1,
      podCount: cluster.pods.length,
    },
    pods: { total: present.length, byStatus },
    network: { cidr: '10.65.0.0/16' },
    createdAt: toIso(cluster.createdAtMs),
    ...(placed && { dataCenterId: placed }),
    ...(primary && {
      primary: {
        podId: primary.spec.id,
        status: primary.lifecycle.statusAt(t),
        ...(direct && { sshEndpoint: `${direct.host}:${direct.port}` }),
      },
    }),
  };
}

export function volumeRecord(volume: ScenarioVolume) {
  return { id: volume.id, name: volume.name, size: volume.size, dataCenter: volume.dataCenter, type: volume.type };
}

export function endpointRecord(endpoint: ScenarioEndpoint) {
  return {
    id: endpoint.id,
    name: endpoint.name,
    type: 'QUEUE',
    image: endpoint.image,
    args: '',
    disk: 20,
    env: {},
    ports: [],
    registry: null,
    workers: { ...endpoint.workers },
    scaling: { type: 'QUEUE_DELAY', queueDelay: 4 },
    dataCenterIds: endpoint.dataCenterIds,
    networkVolumes: [],
    timeout: 600_000,
    flashboot: 'FLASHBOOT',
    createdAt: toIso(endpoint.createdAtMs),
    ...(endpoint.gpu && {
      gpu: { pools: endpoint.gpu.pools, count: endpoint.gpu.count, allowedCudaVersions: [], minCudaVersion: null },
    }),
    ...(endpoint.cpu && { cpu: [{ ...endpoint.cpu }] }),
  };
}

/** Worker statuses in the order listed; each counts the load field of its name in lower case. */
const STATUS_ORDER = ['RUNNING', 'IDLE', 'INITIALIZING', 'UNHEALTHY', 'THROTTLED'] as const;

/** `GET /v2/serverless/{id}/workers`: one worker per active slot, ordered by status. */
export function workersOf(endpoint: ScenarioEndpoint, catalog: Scenario['catalog'], t: number) {
  const load = valueAt(endpoint.load, t, NO_WORKERS);
  const gpuTypeId = catalog.gpus.find((gpu) => gpu.pool !== null && endpoint.gpu?.pools.includes(gpu.pool))?.id ?? null;
  const workers: Array<Record<string, unknown>> = [];
  for (const status of STATUS_ORDER) {
    for (let n = 0; n < load[status.toLowerCase() as keyof WorkerLoad]; n++) {
      const index = workers.length;
      const placed = status !== 'THROTTLED';
      const since = placed ? slotSince(endpoint, index, t) : null;
      const running = placed && status !== 'INITIALIZING';
      workers.push({
        id: `${hash(`${endpoint.id}:${index}`).toString(36)}${index}`,
        status,
        isStale: false,
        version: endpoint.version,
        gpuCount: endpoint.gpu?.count ?? 0,
        image: endpoint.image,
        uptimeSeconds: running && since !== null ? Math.floor((t - since) / 1000) : null,
        gpuTypeId: placed ? gpuTypeId : null,
        dataCenterId: placed
          ? (endpoint.dataCenterIds[index % Math.max(1, endpoint.dataCenterIds.length)] ??
            catalog.dataCenters[0]?.id ??
            null)
          : null,
        startedAt: running && since !== null ? toIso(since) : null,
      });
    }
  }
  return { workers, summary: { ...load, total: workers.length }, endpointVersion: endpoint.version };
}

/** When worker slot `index` came up: the start of the unbroken stretch with more workers than it. */
function slotSince(endpoint: ScenarioEndpoint, index: number, t: number): number | null {
  let at = indexAt(endpoint.load, t);
  let since: number | null = null;
  while (at >= 0) {
    const entry = endpoint.load[at] as { atMs: number; value: WorkerLoad };
    if (billedWorkers(entry.value) <= index) break;
    since = entry.atMs;
    at--;
  }
  return since;
}
