import { z } from 'zod';
import { CpuConfig, containerConfigShape, DateTime, Int } from './common.js';

const QueueBasedRequestUrls = z.looseObject({
  run: z.string(),
  runSync: z.string(),
  status: z.string(),
  stream: z.string(),
  cancel: z.string(),
  retry: z.string(),
  purgeQueue: z.string(),
  health: z.string(),
});

const LoadBalancingRequestUrls = z.looseObject({ base: z.string(), health: z.string() });

const EndpointScaling = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('QUEUE_DELAY'), queueDelay: z.number() }),
  z.looseObject({ type: z.literal('REQUEST_COUNT'), requestCount: Int }),
]);

/** A serverless endpoint (`/serverless`, the v2 name for what v1 called `/endpoints`). */
export const Endpoint = z.looseObject({
  ...containerConfigShape,
  id: z.string(),
  name: z.string(),
  type: z.enum(['QUEUE', 'LOAD_BALANCER']).optional(),
  requestUrls: z.union([QueueBasedRequestUrls, LoadBalancingRequestUrls]).optional(),
  gpu: z
    .looseObject({
      pools: z.array(z.string()),
      excludedTypes: z.array(z.string()).optional(),
      count: Int.optional(),
      allowedCudaVersions: z.array(z.string()),
      minCudaVersion: z.string().nullable(),
    })
    .nullable()
    .optional(),
  cpu: z.array(CpuConfig).optional(),
  workers: z.looseObject({ min: Int, max: Int, idleTimeout: Int.optional() }),
  scaling: EndpointScaling,
  dataCenterIds: z.array(z.string()),
  networkVolumes: z.array(z.string()),
  /** Milliseconds. */
  timeout: Int,
  flashboot: z.enum(['OFF', 'FLASHBOOT', 'PRIORITY_FLASHBOOT']),
  createdAt: DateTime,
});
export type Endpoint = z.infer<typeof Endpoint>;

export const Worker = z.looseObject({
  id: z.string(),
  status: z.enum(['RUNNING', 'IDLE', 'INITIALIZING', 'THROTTLED', 'UNHEALTHY']),
  isStale: z.boolean(),
  version: Int.nullable().optional(),
  gpuCount: Int,
  image: z.string().nullable().optional(),
  uptimeSeconds: Int.nullable().optional(),
  gpuTypeId: z.string().nullable().optional(),
  dataCenterId: z.string().nullable().optional(),
  startedAt: DateTime.nullable().optional(),
});
export type Worker = z.infer<typeof Worker>;

export const WorkerSummary = z.looseObject({
  running: Int,
  idle: Int,
  initializing: Int,
  throttled: Int,
  unhealthy: Int,
  total: Int,
});
export type WorkerSummary = z.infer<typeof WorkerSummary>;

/** The workers answer's envelope: its workers are read one by one (parseEach), so one bad worker hides no other. */
export const ListEndpointWorkersResponse = z.looseObject({
  workers: z.array(z.unknown()),
  summary: WorkerSummary,
  endpointVersion: Int.nullable().optional(),
});
