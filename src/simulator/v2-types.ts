/**
 * The records of RunPod REST v2 as the simulator sends them, read from
 * reference/runpod-rest-v2-openapi.json (components/schemas). Written by hand on purpose: the
 * simulator is a second, independent reading of the document, checked by the contract tests.
 */

export const POD_STATUSES = ['PROVISIONING', 'STARTING', 'RUNNING', 'EXITED', 'ERROR', 'TERMINATED'] as const;
export type PodStatus = (typeof POD_STATUSES)[number];

export const POD_ACTIONS = ['start', 'stop', 'restart', 'terminate'] as const;
export type PodAction = (typeof POD_ACTIONS)[number];

export const AVAILABILITY_LEVELS = ['NONE', 'LOW', 'MEDIUM', 'HIGH'] as const;
export type AvailabilityLevel = (typeof AVAILABILITY_LEVELS)[number];

export type Cloud = 'SECURE' | 'COMMUNITY';

export const VOLUME_TYPES = ['STANDARD', 'HIGH_PERFORMANCE'] as const;
export type VolumeType = (typeof VOLUME_TYPES)[number];

export const DATA_CENTER_REGIONS = [
  'NORTH_AMERICA',
  'SOUTH_AMERICA',
  'EUROPE',
  'ASIA',
  'MIDDLE_EAST',
  'AFRICA',
  'OCEANIA',
  'ANTARCTICA',
  'UNKNOWN',
] as const;

export const COMPLIANCE = [
  'GDPR',
  'ISO_IEC_27001',
  'ISO_14001',
  'PCI_DSS',
  'HITRUST',
  'SOC_1_TYPE_2',
  'SOC_2_TYPE_2',
  'SOC_3_TYPE_2',
  'ITAR',
  'FISMA_HIGH',
  'HIPAA',
  'RENEWABLE',
] as const;
export type ClusterType = 'APPLICATION' | 'TRAINING' | 'SLURM' | 'RAY';

export interface V2PodRuntimePort {
  private: number;
  public: number | null;
  type: string;
  ip: string | null;
}

export interface V2PodRuntime {
  uptime: number;
  gpus: Array<{ util: number; memoryUtil: number }>;
  cpu: { util: number };
  memory: { util: number };
  ports: V2PodRuntimePort[];
}

export interface V2SshEndpoint {
  host: string;
  port: number;
  username: string;
  command: string;
}

export interface V2Pod {
  id: string;
  name: string;
  status: PodStatus;
  actions: PodAction[];
  image: string;
  args: string;
  disk: number;
  mounts: { persistent?: { size: number; path: string }; network?: Array<{ volumeId: string; path: string }> };
  ports: string[];
  env: Record<string, string>;
  registry: string | null;
  gpu?: { id: string; count: number };
  cpu?: { id: string; vcpuCount: number; memory: number };
  cloud: Cloud;
  dataCenterId: string | null;
  cudaVersion: string | null;
  ssh: { proxy: V2SshEndpoint | null; direct: V2SshEndpoint | null };
  cluster?: { id: string; rank: number | null; role?: string; ip?: string };
  template: string | null;
  cost: number;
  locked: boolean;
  globalNetworking: { enabled: boolean; ip?: string; internalDns?: string };
  runtime: V2PodRuntime | null;
  createdAt: string;
  startedAt: string | null;
}

export interface V2Cluster {
  id: string;
  name: string;
  type: ClusterType;
  compute: { gpuTypeId: string; gpuCountPerPod: number; podCount: number };
  dataCenterId?: string;
  pods: { total: number; byStatus: Record<string, number> };
  network?: { cidr: string };
  primary?: { podId: string; status: PodStatus; sshEndpoint?: string };
  createdAt: string;
}

export interface V2NetworkVolume {
  id: string;
  name: string;
  size: number;
  dataCenter: string;
  type: VolumeType;
}

export type WorkerStatus = 'RUNNING' | 'IDLE' | 'INITIALIZING' | 'THROTTLED' | 'UNHEALTHY';

export interface V2Worker {
  id: string;
  status: WorkerStatus;
  isStale: boolean;
  version: number | null;
  gpuCount: number;
  image: string | null;
  uptimeSeconds: number | null;
  gpuTypeId: string | null;
  dataCenterId: string | null;
  startedAt: string | null;
}

export interface V2WorkerSummary {
  running: number;
  idle: number;
  initializing: number;
  throttled: number;
  unhealthy: number;
  total: number;
}

export interface V2Endpoint {
  id: string;
  name: string;
  type: 'QUEUE';
  image: string;
  args: string;
  disk: number;
  env: Record<string, string>;
  ports: string[];
  registry: string | null;
  gpu?: { pools: string[]; count: number; allowedCudaVersions: string[]; minCudaVersion: string | null };
  cpu?: Array<{ id: string; vcpuCount: number; memory: number }>;
  workers: { min: number; max: number; idleTimeout: number };
  scaling: { type: 'QUEUE_DELAY'; queueDelay: number };
  dataCenterIds: string[];
  networkVolumes: string[];
  timeout: number;
  flashboot: 'OFF' | 'FLASHBOOT' | 'PRIORITY_FLASHBOOT';
  createdAt: string;
}

/** The shape GraphQL's gpuTypes/lowestPrice is built from (see graphql-resolvers.ts). */
export interface GpuTypeView {
  id: string;
  name: string;
  memory: number;
  manufacturer: 'NVIDIA' | 'AMD' | 'UNKNOWN';
  price: { secure: number; community: number };
  availability: AvailabilityLevel;
  maxCount: { secure: number; community: number };
}
