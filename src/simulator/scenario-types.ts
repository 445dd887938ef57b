import type { AvailabilityLevel, Cloud, ClusterType, PodAction, PodStatus, VolumeType } from './v2-types.js';

/* The normalized scenario's shapes, apart from the code that builds them: the normalizer's
 * files all need them, and beside that code they would import each other in a circle. */

/**
 * A scenario (SCENARIO.md) with every time made absolute (epoch ms) and every default filled,
 * so the world never has to interpret the file again.
 */
export interface Scenario {
  name: string;
  source: string;
  startMs: number;
  apiKey: string;
  readOnlyKey?: string;
  rateLimit?: { minute?: number; hour?: number; day?: number };
  /** How long a started Pod spends in PROVISIONING and then STARTING before RUNNING. */
  lifecycle: { provisioningMs: number; startingMs: number };
  catalog: { gpus: ScenarioGpuType[]; dataCenters: ScenarioDataCenter[]; cpus: ScenarioCpuType[] };
  /** Standalone Pods; cluster members live under `clusters[].pods`. */
  pods: ScenarioPod[];
  volumes: ScenarioVolume[];
  endpoints: ScenarioEndpoint[];
  clusters: ScenarioCluster[];
  faults: ScenarioFault[];
}

/** Piecewise constant: each value holds from its `atMs` until the next entry's. Sorted. */
export type Timeline<T> = Array<{ atMs: number; value: T }>;

export interface ScenarioGpuType {
  id: string;
  name: string;
  memory: number;
  manufacturer: 'NVIDIA' | 'AMD' | 'UNKNOWN';
  pool: string | null;
  price: { secure: number; community: number; serverless?: number };
  maxCount: { secure: number; community: number };
  availability: Timeline<AvailabilityLevel>;
  dataCenterIds: string[];
  cudaVersions: string[];
}

export interface ScenarioDataCenter {
  id: string;
  name: string;
  region: string;
  country: string;
  globalNetwork: boolean;
  networkVolumeTypes: VolumeType[];
  compliance: string[];
}

export interface ScenarioCpuType {
  id: string;
  name: string;
  group: string;
  vcpu: { min: number; max: number };
  ramGbPerVcpu: number;
  price: { securePerVcpu: number; serverlessPerVcpu: number };
  availability: AvailabilityLevel;
}

/** What a RUNNING Pod reports; null is a telemetry gap (RUNNING, runtime null). */
export interface Utilization {
  gpus: number[];
  gpuMemory: number[];
  cpu: number;
  memory: number;
}

export interface ScenarioPod {
  id: string;
  name: string;
  gpu?: { id: string; count: number };
  cpu?: { id: string; vcpuCount: number; memory: number };
  /** USD per hour while the Pod holds its machine. */
  cost: number;
  /** Status at `startMs`. */
  status: PodStatus;
  createdAtMs: number;
  startedAtMs?: number;
  stoppedAtMs?: number;
  dataCenterId: string | null;
  env: Record<string, string>;
  volumeGb?: number;
  networkVolumeId?: string;
  containerDiskGb: number;
  image: string;
  ports: string[];
  cloud: Cloud;
  locked: boolean;
  cudaVersion: string | null;
  template: string | null;
  utilization: Timeline<Utilization | null>;
  events: Array<{ atMs: number; action: PodAction }>;
  cluster?: { id: string; rank: number; role?: string };
}

export interface ScenarioVolume {
  id: string;
  name: string;
  size: number;
  dataCenter: string;
  type: VolumeType;
  createdAtMs: number;
}

export interface WorkerLoad {
  running: number;
  idle: number;
  initializing: number;
  throttled: number;
  unhealthy: number;
}

export interface ScenarioEndpoint {
  id: string;
  name: string;
  gpu?: { pools: string[]; count: number };
  cpu?: { id: string; vcpuCount: number; memory: number };
  workers: { min: number; max: number; idleTimeout: number };
  pricePerWorkerHour: number;
  /** Worker counts; before the first entry the endpoint has no workers. */
  load: Timeline<WorkerLoad>;
  dataCenterIds: string[];
  image: string;
  version: number;
  createdAtMs: number;
}

export interface ScenarioCluster {
  id: string;
  name: string;
  type: ClusterType;
  pods: ScenarioPod[];
  createdAtMs: number;
}

export interface ScenarioFault {
  fromMs: number;
  toMs: number;
  match: string;
  kind: 'status' | 'latency' | 'malformed' | 'reset';
  status?: number;
  ms?: number;
}

/** Where the normalizer reports a problem it finds (a path in the file and what is wrong). */
export type Report = (path: string, message: string) => void;
