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
