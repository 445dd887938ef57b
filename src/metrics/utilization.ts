import { collectorsFeeding } from '../collectors/index.js';
import type { Database } from '../db/open.js';
import { livePods, type PodSampleRecord, podListPolledAt, podSamplesBetween } from '../db/pods.js';
import { podLists, podSamples, pods } from '../db/schema.js';
import { gaugeTable } from './account-series.js';
import { type MetricsContext, refreshedAccounts } from './source.js';

/** The samples of the account's latest Pod poll: a stopped Pod never shows its last busy figures. */
async function latestSamples(db: Database, account: string): Promise<PodSampleRecord[]> {
  const pods = await livePods(db, account);
  const polledAt = await podListPolledAt(db, account);
  if (polledAt === undefined) return [];
  const live = new Set(pods.map((pod) => pod.podId));
  return (await podSamplesBetween(db, account, polledAt, polledAt)).filter((sample) => live.has(sample.podId));
}

/** A ratio gauge of the Pod's latest sample per GPU or per Pod, from the API's percentage. */
function ratio(name: string, help: string, field: 'gpuUtil' | 'gpuMemoryUtil' | 'cpuUtil' | 'memoryUtil') {
  const perGpu = field === 'gpuUtil' || field === 'gpuMemoryUtil';
  return {
    name,
    help: `${help} in its latest sample, from 0 to 1; absent when the Pod was not sampled or its runtime was unknown.`,
    labelNames: perGpu ? ['account', 'pod_id', 'gpu_index'] : ['account', 'pod_id'],
    series: (sample: PodSampleRecord, set: (labels: Record<string, string>, value: number) => void) => {
      const pod = { account: sample.account, pod_id: sample.podId };
      const percent = sample[field];
      if (Array.isArray(percent)) {
        for (const [index, value] of percent.entries()) set({ ...pod, gpu_index: String(index) }, value / 100);
      } else if (percent !== null) set(pod, percent / 100);
    },
  };
}

/** Utilization of each live Pod's latest sample; a missing runtime is `known` 0, never an idle GPU. */
export function registerUtilizationMetrics(context: MetricsContext): void {
  const fill = gaugeTable<PodSampleRecord>(context.registry, [
    ratio('podwarden_pod_gpu_utilization_ratio', "Compute utilization of one of the Pod's GPUs", 'gpuUtil'),
    ratio('podwarden_pod_gpu_memory_utilization_ratio', "Memory utilization of one of the Pod's GPUs", 'gpuMemoryUtil'),
    ratio('podwarden_pod_cpu_utilization_ratio', "The Pod container's CPU utilization", 'cpuUtil'),
    ratio('podwarden_pod_memory_utilization_ratio', "The Pod container's memory utilization", 'memoryUtil'),
    {
      name: 'podwarden_pod_utilization_known',
      help: "1 when the Pod's latest sample had runtime figures, 0 when its runtime was missing (unknown, never idle); absent when the latest poll did not sample the Pod.",
      labelNames: ['account', 'pod_id'],
      series: (sample, set) => set({ account: sample.account, pod_id: sample.podId }, sample.state === 'known' ? 1 : 0),
    },
  ]);
  context.refreshOn(collectorsFeeding(pods, podLists, podSamples), async (at) => {
    for (const account of refreshedAccounts(context.config, at)) {
      fill(await latestSamples(context.source.db, account), account);
    }
  });
}
