import { toIso } from '../clock.js';
import { MACHINE_HELD, type PodLifecycle, validActions } from './pod-lifecycle.js';
import type { ScenarioPod, Utilization } from './scenario.js';
import { valueAt } from './timeline.js';

/** A Pod as the world keeps it: what the scenario declared plus what has happened to it. */
export interface PodState {
  spec: ScenarioPod;
  lifecycle: PodLifecycle;
}

/** A v2 `Pod` record, as podRecord builds it (the contract tests check it against the document). */
export type V2Pod = ReturnType<typeof podRecord>;

/** The complete v2 `Pod` record at time `t`. */
export function podRecord(pod: PodState, t: number) {
  const { spec, lifecycle } = pod;
  const status = lifecycle.statusAt(t);
  const held = MACHINE_HELD.has(status);
  const startedAt = lifecycle.lastStartedAt(t);
  const runningSince = lifecycle.runningSince(t);
  return {
    id: spec.id,
    name: spec.name,
    status,
    actions: validActions(status, spec.locked),
    image: spec.image,
    args: '',
    disk: spec.containerDiskGb,
    mounts: mountsOf(spec),
    ports: spec.ports,
    env: spec.env,
    registry: null,
    cloud: spec.cloud,
    dataCenterId: spec.dataCenterId,
    cudaVersion: spec.cudaVersion,
    ssh: {
      // The proxy needs a machine assignment, which a Pod gets once it leaves PROVISIONING.
      proxy: status === 'PROVISIONING' ? null : proxySsh(spec.id),
      direct: directSshAt(pod, t),
    },
    template: spec.template,
    cost: held ? spec.cost : 0,
    locked: spec.locked,
    globalNetworking: { enabled: false },
    runtime: runningSince === undefined ? null : runtimeOf(spec, t, runningSince),
    createdAt: toIso(spec.createdAtMs),
    startedAt: startedAt === null ? null : toIso(startedAt),
    ...(spec.gpu && { gpu: { ...spec.gpu } }),
    ...(spec.cpu && { cpu: { ...spec.cpu } }),
    ...(spec.cluster && { cluster: { ...spec.cluster, ip: `10.65.0.${spec.cluster.rank + 2}` } }),
  };
}

/** The v2 `ssh.direct` at `t`: set while the container runs, for a Pod that maps port 22. */
export function directSshAt({ spec, lifecycle }: PodState, t: number) {
  return lifecycle.runningSince(t) !== undefined && spec.ports.includes('22/tcp') ? directSsh(spec.id) : null;
}

const NO_LOAD: Utilization = { gpus: [], gpuMemory: [], cpu: 0, memory: 0 };

function runtimeOf(spec: ScenarioPod, t: number, runningSince: number) {
  // Before its first entry a Pod reports that entry's load (none when there is none).
  const load = valueAt(spec.utilization, t, spec.utilization[0]?.value ?? NO_LOAD);
  if (load === null) return null;
  const count = spec.gpu?.count ?? 0;
  return {
    uptime: Math.floor((t - runningSince) / 1000),
    gpus: Array.from({ length: count }, (_, index) => ({
      util: load.gpus[index] ?? 0,
      memoryUtil: load.gpuMemory[index] ?? 0,
    })),
    cpu: { util: load.cpu },
    memory: { util: load.memory },
    ports: spec.ports.map((port) => runtimePort(spec.id, port)),
  };
}

function mountsOf(spec: ScenarioPod) {
  if (spec.volumeGb !== undefined) return { persistent: { size: spec.volumeGb, path: '/workspace' } };
  if (spec.networkVolumeId !== undefined) return { network: [{ volumeId: spec.networkVolumeId, path: '/workspace' }] };
  return {};
}

/** HTTP ports go through RunPod's proxy (no public IP); TCP ports are mapped on the host's IP. */
function runtimePort(podId: string, port: string) {
  const [privatePort = '0', type = 'tcp'] = port.split('/');
  const number = Number(privatePort);
  if (type === 'http') return { private: number, public: null, type, ip: null };
  return { private: number, public: 10_000 + (hash(`${podId}:${port}`) % 50_000), type, ip: hostIp(podId) };
}

function proxySsh(podId: string) {
  const username = `${podId}-${(hash(podId) % 0xffffffff).toString(16).padStart(8, '0')}`;
  return { host: 'ssh.runpod.io', port: 22, username, command: `ssh ${username}@ssh.runpod.io` };
}

function directSsh(podId: string) {
  const ip = hostIp(podId);
  const port = runtimePort(podId, '22/tcp').public ?? 22;
  return { host: ip, port, username: 'root', command: `ssh root@${ip} -p ${port}` };
}

/** A stable, made-up public address per Pod (TEST-NET-3, never routable). */
function hostIp(podId: string): string {
  return `203.0.113.${(hash(podId) % 254) + 1}`;
}

/** FNV-1a: deterministic ports and addresses from ids, the same on every run. */
export function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    value ^= text.charCodeAt(index);
    value = Math.imul(value, 0x01000193) >>> 0;
  }
  return value;
}
