import { Gauge } from 'prom-client';
import { livePods, type PodSampleRecord, podSamplesBetween } from '../db/pods.js';
import { accountNames, type MetricsContext } from './source.js';

/**
 * The samples of each account's latest Pod poll. Every live Pod was upserted by that poll with
 * its time as last_seen_at, so a Pod that poll did not sample (stopped, starting) has no sample
 * here, and a stopped Pod never shows its last busy figures.
 */
function latestSamples(context: MetricsContext): PodSampleRecord[] {
  const { db } = context.source;
  return accountNames(context.config).flatMap((account) => {
    const pods = livePods(db, account);
    if (pods.length === 0) return [];
    const polledAt = Math.max(...pods.map((pod) => pod.lastSeenAt));
    const live = new Set(pods.map((pod) => pod.podId));
    return podSamplesBetween(db, account, polledAt, polledAt).filter((sample) => live.has(sample.podId));
  });
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
    new Gauge({ name, help, labelNames: ['account', 'pod_id', 'gpu_index'], registers: [registry] });
  const perPod = (name: string, help: string) =>
    new Gauge({ name, help, labelNames: ['account', 'pod_id'], registers: [registry] });

  const perGpuGauges: Array<[Gauge<'account' | 'pod_id' | 'gpu_index'>, PerGpuField]> = [
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
  const perPodGauges: Array<[Gauge<'account' | 'pod_id'>, PerPodField]> = [
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

  context.refreshOn(['pods'], () => {
    for (const [gauge] of perGpuGauges) gauge.reset();
    for (const [gauge] of perPodGauges) gauge.reset();
    known.reset();
    for (const sample of latestSamples(context)) {
      const pod = { account: sample.account, pod_id: sample.podId };
      for (const [gauge, field] of perGpuGauges) {
        for (const [index, percent] of (sample[field] ?? []).entries()) {
          gauge.set({ ...pod, gpu_index: String(index) }, percent / 100);
        }
      }
      for (const [gauge, field] of perPodGauges) {
        const percent = sample[field];
        if (percent !== null) gauge.set(pod, percent / 100);
      }
      known.set(pod, sample.state === 'known' ? 1 : 0);
    }
  });
}
