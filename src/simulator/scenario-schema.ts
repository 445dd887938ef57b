import { z } from 'zod';
import { fields, identifier, nonNegative, offset, percent, positiveDuration, timestamp } from './scenario-fields.js';
import {
  AVAILABILITY_LEVELS,
  COMPLIANCE,
  DATA_CENTER_REGIONS,
  POD_ACTIONS,
  POD_STATUSES,
  VOLUME_TYPES,
} from './v2-types.js';

/**
 * The scenario file as written (SCENARIO.md), before times become absolute. Fields marked
 * "extra" go beyond SCENARIO.md's minimum; every one is optional with a RunPod-like default.
 */

/** An entry may repeat (extra): `{ at: 55m, gpu: 0, every: 1h, until: 24h }`. */
const repeat = { every: positiveDuration.optional(), until: offset.optional() };

const availabilityLevel = z.enum(AVAILABILITY_LEVELS);

const gpuType = fields({
  id: identifier,
  name: identifier,
  memory: z.number().int().min(0),
  price: fields({ secure: nonNegative, community: nonNegative, serverless: nonNegative.optional() }),
  availability: z
    .union([availabilityLevel, z.array(fields({ at: offset, value: availabilityLevel })).min(1)])
    .default('HIGH'),
  manufacturer: z.enum(['NVIDIA', 'AMD', 'UNKNOWN']).optional(), // extra
  pool: identifier.nullable().optional(), // extra: serverless pool, e.g. ADA_24
  maxCount: fields({ secure: z.number().int().min(0), community: z.number().int().min(0) }).optional(), // extra
  dataCenters: z.array(identifier).optional(), // extra: where it is offered (default: everywhere)
  cudaVersions: z.array(z.string().regex(/^\d+\.\d+$/)).optional(), // extra
});

const dataCenter = fields({
  id: identifier,
  name: identifier,
  region: z.enum(DATA_CENTER_REGIONS).optional(), // extra
  country: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .optional(), // extra
  globalNetwork: z.boolean().optional(), // extra
  networkVolumeTypes: z.array(z.enum(VOLUME_TYPES)).optional(), // extra
  compliance: z.array(z.enum(COMPLIANCE)).optional(), // extra
});

const cpuType = fields({
  id: identifier,
  name: identifier.optional(),
  group: identifier.optional(),
  vcpu: fields({ min: z.number().int().min(1), max: z.number().int().min(1) }).optional(),
  ramGbPerVcpu: nonNegative.optional(),
  price: fields({ securePerVcpu: nonNegative, serverlessPerVcpu: nonNegative }).optional(),
  availability: availabilityLevel.optional(),
});

const utilization = fields({
  at: offset,
  gpu: percent.optional(),
  gpus: z.array(percent).optional(),
  memory: percent.optional(),
  cpu: percent.optional(),
  gpuMemory: z.union([percent, z.array(percent)]).optional(), // extra: GPU memoryUtil
  runtime: z.null().optional(),
  ...repeat,
});

const podEvent = fields({ at: offset, action: z.enum(POD_ACTIONS) });

const pod = fields({
  id: identifier,
  name: identifier,
  gpu: fields({ id: identifier, count: z.number().int().min(1).default(1) }).optional(),
  cpu: fields({ id: identifier, vcpuCount: z.number().int().min(2), memory: z.number().int().min(1) }).optional(), // extra
  cost: nonNegative.optional(), // default: the catalog price for the Pod's cloud
  status: z.enum(POD_STATUSES).default('RUNNING'),
  // extra: every start of this Pod stops in this status, billed, and never reaches RUNNING (a
  // machine that never boots: openai/parameter-golf#821); PROVISIONING or STARTING at start: since createdAt
  stuck: z.enum(['PROVISIONING', 'STARTING']).optional(),
  startedAt: offset.optional(),
  stoppedAt: offset.optional(), // extra: EXITED/ERROR/TERMINATED Pods ran from startedAt to here
  createdAt: offset.optional(), // extra
  dataCenterId: identifier.optional(),
  env: z.record(z.string(), z.string()).default({}),
  volumeGb: z.number().int().min(10).optional(),
  networkVolumeId: identifier.optional(), // extra
  containerDiskGb: z.number().int().min(1).default(20), // extra: the v2 `disk`
  image: identifier.optional(), // extra
  ports: z.array(z.string().regex(/^\d+\/(http|tcp|udp)$/)).optional(), // extra
  cloud: z.enum(['SECURE', 'COMMUNITY']).default('SECURE'), // extra
  locked: z.boolean().default(false), // extra: the v2 `locked`, the owner's lock against stop and restart (409)
  cudaVersion: z.string().nullable().optional(), // extra
  template: identifier.nullable().default(null), // extra
  utilization: z.array(utilization).default([]),
  events: z.array(podEvent).default([]),
});

const volume = fields({
  id: identifier,
  name: identifier,
  size: z.number().int().min(10).max(4096),
  dataCenter: identifier,
  type: z.enum(VOLUME_TYPES).default('STANDARD'),
  createdAt: offset.optional(), // extra
});

const workerCount = z.number().int().min(0);

const endpointLoad = fields({
  at: offset,
  running: workerCount,
  idle: workerCount,
  initializing: workerCount.default(0), // extra
  throttled: workerCount.default(0), // extra
  unhealthy: workerCount.default(0), // extra
  ...repeat,
});

const endpoint = fields({
  id: identifier,
  name: identifier,
  gpu: fields({ pools: z.array(identifier).min(1), count: z.number().int().min(1).default(1) }).optional(),
  cpu: fields({ id: identifier, vcpuCount: z.number().int().min(2), memory: z.number().int().min(1) }).optional(), // extra
  workers: fields({
    min: workerCount,
    max: workerCount,
    idleTimeout: z.number().int().min(1).max(3600).default(5),
  }),
  pricePerWorkerHour: nonNegative.optional(), // default: the pool's serverless price × count
  load: z.array(endpointLoad).optional(), // default: `workers.min` idle workers throughout
  dataCenterIds: z.array(identifier).default([]), // extra
  image: identifier.default('runpod/worker-comfyui:5.1.0-sdxl'), // extra
  version: z.number().int().min(1).default(1), // extra: endpointVersion
  createdAt: offset.optional(), // extra
});

const cluster = fields({
  id: identifier,
  name: identifier,
  type: z.enum(['APPLICATION', 'TRAINING', 'SLURM', 'RAY']).default('TRAINING'),
  pods: z.array(pod).min(2).max(250),
  createdAt: offset.optional(), // extra
});

const fault = fields({
  from: offset,
  to: offset,
  match: z.string().min(1),
  kind: z.enum(['status', 'latency', 'malformed', 'reset']),
  status: z.number().int().min(100).max(599).optional(),
  ms: z.number().int().min(0).optional(),
});

export const rawScenarioSchema = fields({
  name: identifier,
  start: timestamp,
  apiKey: identifier,
  readOnlyKey: identifier.optional(),
  rateLimit: fields({
    minute: z.number().int().min(1).optional(),
    hour: z.number().int().min(1).optional(),
    day: z.number().int().min(1).optional(),
  }).optional(),
  lifecycle: fields({ provisioning: positiveDuration.optional(), starting: positiveDuration.optional() }).optional(), // extra
  catalog: fields({
    gpus: z.array(gpuType).default([]),
    dataCenters: z.array(dataCenter).optional(),
    cpus: z.array(cpuType).optional(), // extra
  }).default({ gpus: [] }),
  pods: z.array(pod).default([]),
  volumes: z.array(volume).default([]),
  endpoints: z.array(endpoint).default([]),
  clusters: z.array(cluster).default([]),
  faults: z.array(fault).default([]),
});

export type RawScenario = z.infer<typeof rawScenarioSchema>;
export type RawPod = z.infer<typeof pod>;
export type RawGpuType = z.infer<typeof gpuType>;
export type RawUtilization = z.infer<typeof utilization>;
export type RawEndpoint = z.infer<typeof endpoint>;
