import { createHash } from 'node:crypto';
import { FieldError, type Schema } from './graphql-exec.js';
import type { GpuTypeView, PodAction, V2Pod } from './v2-types.js';
import type { World } from './world.js';

/**
 * The slice of RunPod's GraphQL schema that the daemon and the official clients query
 * (api-notes §5.2), answered from the same world as REST v2, so both dialects always agree.
 */

export interface GraphqlContext {
  world: World;
  nowMs: number;
}

const STOCK_STATUS = { NONE: 'None', LOW: 'Low', MEDIUM: 'Medium', HIGH: 'High' } as const;
const GPU_COUNTS = [1, 2, 4, 8];

export const runpodSchema: Schema<GraphqlContext> = {
  inputs: {
    PodFilter: { podId: 'String!' },
    PodStopInput: { podId: 'String!', incrementVersion: 'Boolean' },
    PodResumeInput: { podId: 'String!', gpuCount: 'Int' },
    PodTerminateInput: { podId: 'String!' },
    GpuTypeFilter: { id: 'String', ids: '[String]' },
    GpuLowestPriceInput: {
      gpuCount: 'Int',
      secureCloud: 'Boolean',
      minMemoryInGb: 'Int',
      minVcpuCount: 'Int',
      totalDisk: 'Int',
      minDisk: 'Int',
      dataCenterId: 'String',
      minCudaVersion: 'String',
      allowedCudaVersions: '[String]',
    },
  },
  objects: {
    Query: {
      myself: { type: 'User!', resolve: () => ({ id: 'user-sim', email: 'sim@example.com' }) },
      pod: { type: 'Pod', args: { input: 'PodFilter!' }, resolve: (_p, args, ctx) => findPod(ctx, podIdOf(args)) },
      gpuTypes: {
        type: '[GpuType]',
        args: { input: 'GpuTypeFilter' },
        resolve: (_p, args, ctx) => {
          const filter = (args.input ?? {}) as { id?: string; ids?: string[] };
          const gpus = ctx.world.gpuTypesView(ctx.nowMs);
          return gpus
            .filter(
              (gpu) =>
                (filter.id === undefined || gpu.id === filter.id) && (!filter.ids || filter.ids.includes(gpu.id)),
            )
            .map((gpu) => toGpuType(gpu));
        },
      },
    },
    Mutation: {
      podStop: { type: 'Pod', args: { input: 'PodStopInput!' }, resolve: (_p, a, ctx) => act(ctx, podIdOf(a), 'stop') },
      podResume: {
        type: 'Pod',
        args: { input: 'PodResumeInput!' },
        resolve: (_p, a, ctx) => act(ctx, podIdOf(a), 'start'),
      },
      podTerminate: {
        type: 'Boolean',
        args: { input: 'PodTerminateInput!' },
        resolve: (_p, a, ctx) => {
          act(ctx, podIdOf(a), 'terminate');
          return null;
        },
      },
    },
    User: {
      id: { type: 'String!' },
      email: { type: 'String' },
      currentSpendPerHr: {
        type: 'Float',
        resolve: (_p, _a, ctx) => listPods(ctx).reduce((sum, pod) => sum + pod.cost, 0),
      },
      pods: { type: '[Pod]', resolve: (_p, _a, ctx) => listPods(ctx).map((pod) => toPod(pod, ctx)) },
    },
    Pod: fields({
      String: 'id name desiredStatus imageName dockerArgs ports podType machineId lastStatusChange volumeMountPath',
      Float: 'costPerHr adjustedCostPerHr memoryInGb',
      Int: 'gpuCount vcpuCount containerDiskInGb volumeInGb uptimeSeconds',
      '[String]': 'env',
      PodRuntime: 'runtime',
      PodMachine: 'machine',
    }),
    PodRuntime: {
      uptimeInSeconds: { type: 'Int' },
      ports: { type: '[PodRuntimePorts]' },
      gpus: { type: '[PodRuntimeGpus]' },
      container: { type: 'PodRuntimeContainer' },
    },
    PodRuntimePorts: fields({ String: 'ip type', Boolean: 'isIpPublic', Int: 'privatePort publicPort' }),
    PodRuntimeGpus: fields({ String: 'id', Int: 'gpuUtilPercent memoryUtilPercent' }),
    PodRuntimeContainer: fields({ Int: 'cpuPercent memoryPercent' }),
    PodMachine: fields({ String: 'gpuDisplayName location podHostId' }),
    GpuType: {
      ...fields({
        String: 'id displayName manufacturer',
        Int: 'memoryInGb maxGpuCount',
        Boolean: 'secureCloud communityCloud',
        Float:
          'securePrice communityPrice secureSpotPrice communitySpotPrice oneWeekPrice oneMonthPrice threeMonthPrice',
      }),
      lowestPrice: {
        type: 'LowestPrice',
        args: { input: 'GpuLowestPriceInput' },
        resolve: (parent, args) => lowestPrice(parent.record as GpuTypeView, (args.input ?? {}) as LowestPriceInput),
      },
    },
    LowestPrice: fields({
      String: 'gpuName gpuTypeId stockStatus',
      Float: 'uninterruptablePrice minimumBidPrice minMemory minVcpu',
      '[Int]': 'availableGpuCounts',
    }),
  },
};

/** Declares plain fields by type, `{ Int: 'a b c' }`, so the tables stay readable. */
function fields(byType: Record<string, string>): Record<string, { type: string }> {
  return Object.fromEntries(
    Object.entries(byType).flatMap(([type, names]) => names.split(' ').map((name) => [name, { type }])),
  );
}

function podIdOf(args: Record<string, unknown>): string {
  return (args.input as { podId: string }).podId;
}

function listPods(ctx: GraphqlContext): V2Pod[] {
  // GraphQL has no notion of hiding cluster members; it lists every Pod of the account.
  return ctx.world.podsView(ctx.nowMs, { includeClusterPods: true });
}

function findPod(ctx: GraphqlContext, podId: string): Record<string, unknown> {
  const pod = ctx.world.podView(podId, ctx.nowMs);
  if (!pod) throw new FieldError(`pod not found: ${podId}`);
  return toPod(pod, ctx);
}

function act(ctx: GraphqlContext, podId: string, action: PodAction): Record<string, unknown> | null {
  const result = ctx.world.podAction(podId, action, ctx.nowMs);
  if (!result.ok) throw new FieldError(result.status === 404 ? `pod not found: ${podId}` : result.detail);
  return result.pod && toPod(result.pod, ctx);
}

/** What the owner asked for, as GraphQL reports it; a starting or failed Pod still wants to run. */
function desiredStatusOf(status: string): string {
  return status === 'EXITED' || status === 'TERMINATED' ? status : 'RUNNING';
}

function toPod(pod: V2Pod, ctx: GraphqlContext): Record<string, unknown> {
  const runtime = pod.runtime;
  const gpuName = pod.gpu
    ? (ctx.world.gpuTypesView(ctx.nowMs).find((g) => g.id === pod.gpu?.id)?.name ?? pod.gpu.id)
    : null;
  const desiredStatus = desiredStatusOf(pod.status);
  return {
    id: pod.id,
    name: pod.name,
    desiredStatus,
    costPerHr: pod.cost,
    adjustedCostPerHr: pod.cost,
    gpuCount: pod.gpu?.count ?? 0,
    vcpuCount: pod.cpu?.vcpuCount ?? null,
    memoryInGb: pod.cpu?.memory ?? null,
    containerDiskInGb: pod.disk ?? null,
    volumeInGb: pod.mounts?.persistent?.size ?? 0,
    volumeMountPath: pod.mounts?.persistent?.path ?? null,
    imageName: pod.image ?? null,
    dockerArgs: pod.args ?? '',
    env: Object.entries(pod.env ?? {}).map(([key, value]) => `${key}=${value}`),
    ports: (pod.ports ?? []).join(','),
    podType: pod.cloud === 'COMMUNITY' ? 'INTERRUPTABLE' : 'RESERVED',
    machineId: `machine-${pod.id}`,
    lastStatusChange: desiredStatus === 'RUNNING' ? `Rented by User: ${pod.startedAt ?? ''}` : 'Exited by User',
    uptimeSeconds: runtime?.uptime ?? 0,
    machine: { gpuDisplayName: gpuName, location: pod.dataCenterId ?? null, podHostId: `${pod.id}-host` },
    runtime: runtime && {
      uptimeInSeconds: runtime.uptime,
      ports: (runtime.ports ?? []).map((p) => ({
        ip: p.ip,
        isIpPublic: p.ip !== null && !/^(10|100|172|192)\./.test(p.ip),
        privatePort: p.private,
        publicPort: p.public,
        type: p.type,
      })),
      gpus: (runtime.gpus ?? []).map((g, index) => ({
        id: gpuDeviceId(pod.id, index),
        gpuUtilPercent: g.util,
        memoryUtilPercent: g.memoryUtil,
      })),
      container: { cpuPercent: runtime.cpu?.util ?? 0, memoryPercent: runtime.memory?.util ?? 0 },
    },
  };
}

/** A stable device UUID per Pod and GPU index, shaped like nvidia-smi's `GPU-xxxxxxxx-…`. */
export function gpuDeviceId(podId: string, index: number): string {
  const hex = createHash('sha1').update(`${podId}/${index}`).digest('hex');
  return `GPU-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

function toGpuType(gpu: GpuTypeView): Record<string, unknown> {
  return {
    record: gpu,
    id: gpu.id,
    displayName: gpu.name,
    manufacturer: gpu.manufacturer,
    memoryInGb: gpu.memory,
    maxGpuCount: Math.max(gpu.maxCount.secure, gpu.maxCount.community),
    secureCloud: gpu.maxCount.secure > 0,
    communityCloud: gpu.maxCount.community > 0,
    securePrice: gpu.price.secure,
    communityPrice: gpu.price.community,
  };
}

interface LowestPriceInput {
  gpuCount?: number;
  secureCloud?: boolean;
}

/**
 * The cheapest on-demand offer (USD per GPU and hour) in the cloud asked for, or in either when
 * `secureCloud` is not given, and whether `gpuCount` GPUs of the type can be had now.
 */
function lowestPrice(gpu: GpuTypeView, input: LowestPriceInput): Record<string, unknown> {
  const gpuCount = input.gpuCount ?? 1;
  const clouds = (['secure', 'community'] as const).filter(
    (cloud) =>
      (input.secureCloud === undefined || input.secureCloud === (cloud === 'secure')) && gpu.maxCount[cloud] > 0,
  );
  const cheapest = clouds.sort((a, b) => gpu.price[a] - gpu.price[b])[0];
  const maxCount = cheapest ? gpu.maxCount[cheapest] : 0;
  const inStock = cheapest !== undefined && gpu.availability !== 'NONE' && gpuCount <= maxCount;
  return {
    gpuName: gpu.name,
    gpuTypeId: gpu.id,
    stockStatus: cheapest ? STOCK_STATUS[gpu.availability] : null,
    uninterruptablePrice: cheapest ? gpu.price[cheapest] : null,
    minimumBidPrice: null,
    minMemory: null,
    minVcpu: null,
    availableGpuCounts: inStock ? GPU_COUNTS.filter((n) => n <= maxCount) : [],
  };
}
