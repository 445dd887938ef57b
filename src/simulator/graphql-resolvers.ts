import { createHash } from 'node:crypto';
import { GraphQLError } from 'graphql';
import type { V2Pod } from './pod-view.js';
import type { ScenarioGpuType } from './scenario.js';
import type { AvailabilityLevel, PodAction } from './v2-types.js';
import type { World } from './world.js';

/**
 * The resolvers of RUNPOD_SDL, answered from the same world as REST v2, so both dialects always
 * agree. graphql-js's default resolver reads a field of the parent value, and calls it with
 * `(args, context)` when it is a function: objects carry their argument-taking or costly fields
 * as functions, so only what a query selects is computed.
 */

export interface GraphqlContext {
  world: World;
  nowMs: number;
}

type PodInput = { input: { podId: string } };

const STOCK_STATUS = { NONE: 'None', LOW: 'Low', MEDIUM: 'Medium', HIGH: 'High' } as const;
const GPU_COUNTS = [1, 2, 4, 8];

/** The root value for both operations: Query's fields and Mutation's. */
export const runpodRoot = {
  myself: () => ({
    id: 'user-sim',
    email: 'sim@example.com',
    currentSpendPerHr: (_args: unknown, ctx: GraphqlContext) => listPods(ctx).reduce((sum, pod) => sum + pod.cost, 0),
    pods: (_args: unknown, ctx: GraphqlContext) => listPods(ctx).map((pod) => toPod(pod, ctx)),
  }),
  pod: ({ input }: PodInput, ctx: GraphqlContext) => findPod(ctx, input.podId),
  gpuTypes: ({ input }: { input?: { id?: string | null; ids?: string[] | null } | null }, ctx: GraphqlContext) =>
    ctx.world.scenario.catalog.gpus
      .filter((gpu) => (input?.id == null || gpu.id === input.id) && (input?.ids == null || input.ids.includes(gpu.id)))
      .map((gpu) => toGpuType(gpu, ctx.world.availabilityOf(gpu, ctx.nowMs))),
  podStop: ({ input }: PodInput, ctx: GraphqlContext) => act(ctx, input.podId, 'stop'),
  podResume: ({ input }: PodInput, ctx: GraphqlContext) => act(ctx, input.podId, 'start'),
  podTerminate: ({ input }: PodInput, ctx: GraphqlContext) => {
    act(ctx, input.podId, 'terminate');
    return null;
  },
};

/** A refusal of RunPod's own, as its Apollo server words it: `extensions.code` RUNPOD (api-notes §5.3). */
function runpodError(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'RUNPOD' } });
}

function listPods(ctx: GraphqlContext): V2Pod[] {
  // GraphQL has no notion of hiding cluster members; it lists every Pod of the account.
  return ctx.world.podsView(ctx.nowMs, { includeClusterPods: true });
}

function findPod(ctx: GraphqlContext, podId: string): Record<string, unknown> {
  const pod = ctx.world.podView(podId, ctx.nowMs);
  if (!pod) throw runpodError(`pod not found: ${podId}`);
  return toPod(pod, ctx);
}

function act(ctx: GraphqlContext, podId: string, action: PodAction): Record<string, unknown> | null {
  const result = ctx.world.podAction(podId, action, ctx.nowMs);
  if (!result.ok) throw runpodError(result.status === 404 ? `pod not found: ${podId}` : result.detail);
  return result.pod && toPod(result.pod, ctx);
}

function toPod(pod: V2Pod, ctx: GraphqlContext): Record<string, unknown> {
  const runtime = pod.runtime;
  const gpuName = pod.gpu
    ? (ctx.world.scenario.catalog.gpus.find((g) => g.id === pod.gpu?.id)?.name ?? pod.gpu.id)
    : null;
  // What the owner asked for, as GraphQL reports it; a starting or failed Pod still wants to run.
  const desiredStatus = pod.status === 'EXITED' || pod.status === 'TERMINATED' ? pod.status : 'RUNNING';
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

function toGpuType(gpu: ScenarioGpuType, availability: AvailabilityLevel): Record<string, unknown> {
  return {
    id: gpu.id,
    displayName: gpu.name,
    manufacturer: gpu.manufacturer,
    memoryInGb: gpu.memory,
    maxGpuCount: Math.max(gpu.maxCount.secure, gpu.maxCount.community),
    secureCloud: gpu.maxCount.secure > 0,
    communityCloud: gpu.maxCount.community > 0,
    securePrice: gpu.price.secure,
    communityPrice: gpu.price.community,
    lowestPrice: ({ input }: { input?: LowestPriceInput | null }) => lowestPrice(gpu, availability, input ?? {}),
  };
}

type LowestPriceInput = { gpuCount?: number | null; secureCloud?: boolean | null };

/**
 * The cheapest on-demand offer (USD per GPU and hour) in the cloud asked for, or in either when
 * `secureCloud` is not given, and whether `gpuCount` GPUs of the type can be had now.
 */
function lowestPrice(gpu: ScenarioGpuType, availability: AvailabilityLevel, input: LowestPriceInput) {
  const gpuCount = input.gpuCount ?? 1;
  const clouds = (['secure', 'community'] as const).filter(
    (cloud) => (input.secureCloud == null || input.secureCloud === (cloud === 'secure')) && gpu.maxCount[cloud] > 0,
  );
  const cheapest = clouds.sort((a, b) => gpu.price[a] - gpu.price[b])[0];
  const maxCount = cheapest ? gpu.maxCount[cheapest] : 0;
  const inStock = cheapest !== undefined && availability !== 'NONE' && gpuCount <= maxCount;
  return {
    gpuName: gpu.name,
    gpuTypeId: gpu.id,
    stockStatus: cheapest ? STOCK_STATUS[availability] : null,
    uninterruptablePrice: cheapest ? gpu.price[cheapest] : null,
    minimumBidPrice: null,
    minMemory: null,
    minVcpu: null,
    availableGpuCounts: inStock ? GPU_COUNTS.filter((n) => n <= maxCount) : [],
  };
}
