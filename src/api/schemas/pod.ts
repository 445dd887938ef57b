import { z } from 'zod';
import { Cloud, CpuConfig, containerConfigShape, DateTime, Int, PodAction, PodStatus } from './common.js';

const Utilization = z.looseObject({ util: Int.optional() });

const PodGpuUtilization = z.looseObject({ util: Int.optional(), memoryUtil: Int.optional() });

const PodRuntimePort = z.looseObject({
  private: Int.optional(),
  public: Int.nullable().optional(),
  type: z.string().optional(),
  ip: z.string().nullable().optional(),
});

/**
 * Live utilisation of a running Pod, with every field the document leaves optional made
 * explicit: `null` means "not reported", which rules must read as UNKNOWN, never as idle.
 * `gpus` stays null (not []) when absent so a GPU Pod without samples cannot look idle.
 */
export interface PodRuntime {
  uptime: number | null;
  gpus: Array<{ util: number | null; memoryUtil: number | null }> | null;
  cpu: { util: number | null } | null;
  memory: { util: number | null } | null;
  ports: Array<z.infer<typeof PodRuntimePort>>;
}

export const PodRuntime = z
  .looseObject({
    uptime: Int.optional(),
    gpus: z.array(PodGpuUtilization).optional(),
    cpu: Utilization.optional(),
    memory: Utilization.optional(),
    ports: z.array(PodRuntimePort).optional(),
  })
  .transform(
    (raw): PodRuntime => ({
      uptime: raw.uptime ?? null,
      gpus: raw.gpus?.map((gpu) => ({ util: gpu.util ?? null, memoryUtil: gpu.memoryUtil ?? null })) ?? null,
      cpu: raw.cpu ? { util: raw.cpu.util ?? null } : null,
      memory: raw.memory ? { util: raw.memory.util ?? null } : null,
      ports: raw.ports ?? [],
    }),
  );

const PodSshEndpoint = z.looseObject({ host: z.string(), port: Int, username: z.string(), command: z.string() });

const Mounts = z.looseObject({
  persistent: z.looseObject({ size: Int, path: z.string() }).optional(),
  network: z.array(z.looseObject({ volumeId: z.string(), path: z.string() })).optional(),
});

export const PodCluster = z.looseObject({
  id: z.string(),
  rank: Int.nullable(),
  role: z.enum(['SLURM_CONTROLLER', 'SLURM_COMPUTE', 'RAY_HEAD', 'RAY_WORKER']).optional(),
  ip: z.string().optional(),
});

export const Pod = z.looseObject({
  ...containerConfigShape,
  id: z.string(),
  name: z.string(),
  status: PodStatus,
  actions: z.array(PodAction),
  image: z.string(),
  args: z.string(),
  disk: Int,
  mounts: Mounts,
  ports: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  registry: z.string().nullable(),
  /** GPU Pods only. */
  gpu: z.looseObject({ id: z.string(), count: Int.default(1) }).optional(),
  /** CPU Pods only. */
  cpu: CpuConfig.optional(),
  /** Cluster members only. */
  cluster: PodCluster.optional(),
  cloud: Cloud,
  dataCenterId: z.string().nullable(),
  cudaVersion: z.string().nullable(),
  ssh: z.looseObject({ proxy: PodSshEndpoint.nullable(), direct: PodSshEndpoint.nullable() }),
  template: z.string().nullable(),
  /** USD per hour; 0 when EXITED or TERMINATED. */
  cost: z.number(),
  locked: z.boolean(),
  globalNetworking: z.looseObject({
    enabled: z.boolean(),
    ip: z.string().optional(),
    internalDns: z.string().optional(),
  }),
  runtime: PodRuntime.nullable(),
  createdAt: DateTime,
  startedAt: DateTime.nullable(),
});
export type Pod = z.infer<typeof Pod>;
