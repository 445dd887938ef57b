import type { Pod } from '../api/schemas.js';
import { ownerEnvNames } from '../config/owner-of.js';
import { type PodInput, type PodSampleInput, storePodPoll } from '../db/pods.js';
import { idleSamplesFrom } from '../db/sample-horizon.js';
import { podLists, podSampleEnds, podSamples, podSampleTails, pods, podUtilPeaks } from '../db/schema.js';
import type { Collector } from './collector.js';
import { collectResult, unreadableOf } from './rejected-items.js';

/**
 * The env names whose values are always stored with a Pod: the opt-out flag and ownership labels.
 * The keys `owners.fromEnv` names are stored too; every other value stays out of the database,
 * because env is where people put their tokens.
 */
export const KEPT_ENV_NAMES: readonly string[] = ['COST_CENTER', 'OWNER', 'PODWARDEN_IGNORE', 'PROJECT', 'TEAM'];

const POD_LIST = { key: 'pods', one: 'Pod', many: 'Pods', kept: 'treated as unknown' };

/**
 * `pods`: the latest state of every Pod (cluster members included) and one utilization sample
 * per Pod per poll. Pods missing from the list are marked gone by syncPods, never deleted.
 */
export const podsCollector: Collector<'pods'> = {
  name: 'pods',
  feeds: [podLists, pods, podSamples, podSampleEnds, podSampleTails, podUtilPeaks],
  async collect(ctx) {
    const listed = await ctx.api.rest.listPods({ includeClusterPods: true }, { signal: ctx.signal });
    const keptNames = [...new Set([...KEPT_ENV_NAMES, ...ownerEnvNames(ctx.config.owners)])];
    const rows = listed.items.map((pod) => podRow(pod, keptNames));
    const samples = listed.items.flatMap((pod) => sampleOf(pod, ctx.now) ?? []);
    const unreadable = unreadableOf(listed.rejected);
    // A Pod we could not read is unknown this poll, on record: never idle, never stopped.
    samples.push(...unreadable.ids.map((podId) => unknownSample(podId, ctx.now)));
    for (const item of listed.rejected) {
      ctx.log.warn(
        { route: 'GET /pods', index: item.index, podId: item.id, reason: item.reason },
        'pod rejected by the schema; treated as unknown',
      );
    }
    const { upserted, gone, sampled } = await storePodPoll(ctx.db, {
      account: ctx.account,
      pods: rows,
      unreadable,
      samples,
      now: ctx.now,
      tailFrom: idleSamplesFrom(ctx.config, ctx.now),
    });
    return collectResult(upserted + gone.length + sampled, [listed.rejected, POD_LIST]);
  },
};

function unknownSample(podId: string, observedAt: number): PodSampleInput {
  const none = { uptimeS: null, gpuUtil: null, gpuMemoryUtil: null, cpuUtil: null, memoryUtil: null };
  return { podId, observedAt, state: 'unknown', ...none };
}

function podRow(pod: Pod, keptNames: readonly string[]): PodInput {
  return {
    podId: pod.id,
    name: pod.name,
    status: pod.status,
    costPerHr: pod.cost,
    gpuTypeId: pod.gpu?.id ?? null,
    gpuCount: pod.gpu?.count ?? null,
    cpuTypeId: pod.cpu?.id ?? null,
    cloud: pod.cloud,
    dataCenterId: pod.dataCenterId,
    clusterId: pod.cluster?.id ?? null,
    clusterRole: pod.cluster?.role ?? null,
    volumeGb: pod.mounts.persistent?.size ?? null,
    networkVolumeId: pod.mounts.network?.[0]?.volumeId ?? null,
    env: keptEnv(pod.env, keptNames),
    actions: [...pod.actions],
    locked: pod.locked ? 1 : 0,
    createdAt: Date.parse(pod.createdAt),
    startedAt: pod.startedAt === null ? null : Date.parse(pod.startedAt),
  };
}

function keptEnv(env: Readonly<Record<string, string>>, keptNames: readonly string[]): Record<string, string> {
  return Object.fromEntries(keptNames.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])));
}

/**
 * A Pod with a runtime gives a known sample. A RUNNING Pod without one is a telemetry gap and
 * gives an `unknown` sample, so the gap is on record instead of looking like missing polls.
 * Any other Pod (stopped, provisioning, in error) is not sampled: there is nothing to measure.
 */
export function sampleOf(pod: Pod, observedAt: number): PodSampleInput | undefined {
  const { runtime } = pod;
  if (runtime === null) return pod.status === 'RUNNING' ? unknownSample(pod.id, observedAt) : undefined;
  return {
    podId: pod.id,
    observedAt,
    state: 'known',
    uptimeS: runtime.uptime,
    gpuUtil: perGpu(runtime.gpus, 'util'),
    gpuMemoryUtil: perGpu(runtime.gpus, 'memoryUtil'),
    cpuUtil: runtime.cpu?.util ?? null,
    memoryUtil: runtime.memory?.util ?? null,
  };
}

/**
 * One figure per GPU in index order, or null when any GPU did not report it: a partial list
 * would make the busiest-GPU figure look lower than it is, and unknown must never read as idle.
 */
function perGpu(
  gpus: Array<{ util: number | null; memoryUtil: number | null }> | null,
  field: 'util' | 'memoryUtil',
): number[] | null {
  if (gpus === null) return null;
  const values = gpus.map((gpu) => gpu[field]);
  return values.every((value): value is number => value !== null) ? values : null;
}
