import { normalizeCatalog, type Report } from './scenario-catalog.js';
import { normalizeEndpoint, normalizePod, type PodContext, type ScenarioPod } from './scenario-resources.js';
import type { RawScenario } from './scenario-schema.js';

/**
 * A scenario (SCENARIO.md) with every time made absolute (epoch ms) and every default filled,
 * so the world never has to interpret the file again.
 */
export type Scenario = ReturnType<typeof normalizeScenario>;
export type ScenarioCluster = Scenario['clusters'][number];
export type ScenarioVolume = Scenario['volumes'][number];
export type ScenarioFault = Scenario['faults'][number];

const DEFAULT_PROVISIONING_MS = 20_000;
const DEFAULT_STARTING_MS = 30_000;

/** Makes times absolute, fills defaults and checks what zod cannot: references and order. */
export function normalizeScenario(raw: RawScenario, source: string, report: Report) {
  const startMs = raw.start;
  const catalog = normalizeCatalog(raw, startMs, report);
  const volumeIds = new Set(raw.volumes.map((volume) => volume.id));
  const context: PodContext = { startMs, catalog, volumeIds, report };

  const pods = raw.pods.map((pod, index) => normalizePod(pod, `pods[${index}]`, context));
  const clusters = raw.clusters.map((cluster, index) => {
    const path = `clusters[${index}]`;
    const members = cluster.pods.map((pod, rank) => {
      const role = roleOf(cluster.type, rank);
      return normalizePod(pod, `${path}.pods[${rank}]`, context, { id: cluster.id, rank, ...(role && { role }) });
    });
    checkHomogeneous(members, path, report);
    const createdAtMs =
      cluster.createdAt === undefined
        ? Math.min(...members.map((member) => member.createdAtMs))
        : startMs + cluster.createdAt;
    return { id: cluster.id, name: cluster.name, type: cluster.type, pods: members, createdAtMs };
  });

  const ids = (items: Array<{ id: string }>) => items.map((item) => item.id);
  checkUnique(ids([...pods, ...clusters.flatMap((cluster) => cluster.pods)]), 'pod id', report);
  checkUnique(ids(raw.volumes), 'volume id', report);
  checkUnique(ids(raw.endpoints), 'endpoint id', report);
  checkUnique(ids(raw.clusters), 'cluster id', report);

  return {
    name: raw.name,
    source,
    startMs,
    apiKey: raw.apiKey,
    ...(raw.readOnlyKey === undefined ? {} : { readOnlyKey: raw.readOnlyKey }),
    ...(raw.rateLimit === undefined ? {} : { rateLimit: raw.rateLimit }),
    /** How long a started Pod spends in PROVISIONING and then STARTING before RUNNING. */
    lifecycle: {
      provisioningMs: raw.lifecycle?.provisioning ?? DEFAULT_PROVISIONING_MS,
      startingMs: raw.lifecycle?.starting ?? DEFAULT_STARTING_MS,
    },
    catalog,
    /** Standalone Pods; cluster members live under `clusters[].pods`. */
    pods,
    volumes: raw.volumes.map((volume) => ({
      id: volume.id,
      name: volume.name,
      size: volume.size,
      dataCenter: volume.dataCenter,
      type: volume.type,
      createdAtMs: startMs + (volume.createdAt ?? 0),
    })),
    endpoints: raw.endpoints.map((endpoint, index) =>
      normalizeEndpoint(endpoint, `endpoints[${index}]`, startMs, catalog, report),
    ),
    clusters,
    faults: raw.faults.map((fault, index) => normalizeFault(fault, `faults[${index}]`, startMs, report)),
  };
}

function roleOf(type: RawScenario['clusters'][number]['type'], rank: number): string | undefined {
  if (type === 'SLURM') return rank === 0 ? 'SLURM_CONTROLLER' : 'SLURM_COMPUTE';
  if (type === 'RAY') return rank === 0 ? 'RAY_HEAD' : 'RAY_WORKER';
  return undefined;
}

/** A cluster's shape is homogeneous (ClusterCompute): one GPU type and count for every Pod. */
function checkHomogeneous(members: ScenarioPod[], path: string, report: Report): void {
  const first = members[0]?.gpu;
  members.forEach((member, rank) => {
    if (!member.gpu) report(`${path}.pods[${rank}].gpu`, 'cluster Pods are GPU Pods: gpu is required');
    else if (first && (member.gpu.id !== first.id || member.gpu.count !== first.count)) {
      report(`${path}.pods[${rank}].gpu`, `every Pod of a cluster has the same gpu (${first.count} × ${first.id})`);
    }
  });
}

function checkUnique(ids: string[], what: string, report: Report): void {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) report(what, `duplicate ${what} "${id}"`);
    seen.add(id);
  }
}

function normalizeFault(fault: RawScenario['faults'][number], path: string, startMs: number, report: Report) {
  if (fault.to <= fault.from) report(`${path}.to`, 'must be after from');
  if (fault.kind === 'status' && fault.status === undefined) report(`${path}.status`, 'required for kind "status"');
  if (fault.kind === 'latency' && fault.ms === undefined) report(`${path}.ms`, 'required for kind "latency"');
  return {
    fromMs: startMs + fault.from,
    toMs: startMs + fault.to,
    match: fault.match,
    kind: fault.kind,
    ...(fault.status !== undefined && { status: fault.status }),
    ...(fault.ms !== undefined && { ms: fault.ms }),
  };
}
