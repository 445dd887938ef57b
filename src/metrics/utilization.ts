import { collectorsFeeding } from '../collectors/index.js';
import type { Database } from '../db/open.js';
import { livePods, type PodSampleRecord, podListPolledAt, podSamplesBetween } from '../db/pods.js';
import { podLists, podSamples, pods } from '../db/schema.js';
import { accountGauge, type SeriesByAccount } from './account-series.js';
import { type MetricsContext, refreshedAccounts } from './source.js';

/**
 * The samples of each account's latest Pod poll, the latest last_seen_at of its live Pods, so a
 * Pod that poll did not sample (stopped, starting) has no sample here, and a stopped Pod never
 * shows its last busy figures.
 */
async function latestSamples(db: Database, account: string): Promise<PodSampleRecord[]> {
  const pods = await livePods(db, account);
  const polledAt = await podListPolledAt(db, account);
  if (polledAt === undefined) return [];
  const live = new Set(pods.map((pod) => pod.podId));
  return (await podSamplesBetween(db, account, polledAt, polledAt)).filter((sample) => live.has(sample.podId));
}

type PerGpuField = 'gpuUtil' | 'gpuMemoryUtil';
type PerPodField = 'cpuUtil' | 'memoryUtil';

/**
 * Utilization of each live Pod from its latest sample, as ratios (the API's percentages / 100),
 * set after every Pod poll. A Pod whose runtime was missing has `podwarden_pod_utilization_known`
 * 0 and no figures: unknown is a value, not an idle GPU.
 */
export function registerUtilizationMetrics(context: MetricsContext): void {
  const { registry } = context;
  const perGpu = (name: string, help: string) =>
    accountGauge(registry, { name, help, labelNames: ['account', 'pod_id', 'gpu_index'] });
  const perPod = (name: string, help: string) =>
    accountGauge(registry, { name, help, labelNames: ['account', 'pod_id'] });

  const perGpuGauges: Array<[SeriesByAccount, PerGpuField]> = [
    [
      perGpu(
        'podwarden_pod_gpu_utilization_ratio',
        "Compute utilization of one of the Pod's GPUs in its latest sample, from 0 to 1; absent when the Pod was not sampled or its runtime was unknown.",
      ),
      'gpuUtil',
    ],
    [
      perGpu(
        'podwarden_pod_gpu_memory_utilization_ratio',
        "Memory utilization of one of the Pod's GPUs in its latest sample, from 0 to 1; absent when the Pod was not sampled or its runtime was unknown.",
      ),
      'gpuMemoryUtil',
    ],
  ];
  const perPodGauges: Array<[SeriesByAccount, PerPodField]> = [
    [
      perPod(
        'podwarden_pod_cpu_utilization_ratio',
        "The Pod container's CPU utilization in its latest sample, from 0 to 1; absent when the Pod was not sampled or its runtime was unknown.",
      ),
      'cpuUtil',
    ],
    [
      perPod(
        'podwarden_pod_memory_utilization_ratio',
        "The Pod container's memory utilization in its latest sample, from 0 to 1; absent when the Pod was not sampled or its runtime was unknown.",
      ),
      'memoryUtil',
    ],
  ];
  const known = perPod(
    'podwarden_pod_utilization_known',
    "1 when the Pod's latest sample had runtime figures, 0 when its runtime was missing (unknown, never idle); absent when the latest poll did not sample the Pod.",
  );

  context.refreshOn(collectorsFeeding(pods, podLists, podSamples), async (at) => {
    for (const account of refreshedAccounts(context.config, at)) {
      const samples = await latestSamples(context.source.db, account);
      for (const [series] of [...perGpuGauges, ...perPodGauges]) series.clear(account);
      known.clear(account);
      for (const sample of samples) {
        const pod = { account, pod_id: sample.podId };
        for (const [series, field] of perGpuGauges) {
          for (const [index, percent] of (sample[field] ?? []).entries()) {
            series.set(account, { ...pod, gpu_index: String(index) }, percent / 100);
          }
        }
        for (const [series, field] of perPodGauges) {
          const percent = sample[field];
          if (percent !== null) series.set(account, pod, percent / 100);
        }
        known.set(account, pod, sample.state === 'known' ? 1 : 0);
      }
    }
  });
}
