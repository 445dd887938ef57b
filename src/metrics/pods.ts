import { Gauge } from 'prom-client';
import { livePods, type PodRecord } from '../db/pods.js';
import { accountNames, type MetricsContext } from './source.js';

/** Every Pod podwarden last saw listed, per account; a vanished Pod drops out (it is marked gone). */
function livePodsOf(context: MetricsContext): Array<PodRecord> {
  return accountNames(context.config).flatMap((account) => livePods(context.source.db, account));
}

/**
 * Each live Pod's cost and description from the pods table. The gauges are reset and refilled
 * on every scrape, so a Pod that vanished from the account has no series at all.
 */
export function registerPodMetrics(context: MetricsContext): void {
  const { registry } = context;
  const cost: Gauge<'account' | 'pod_id' | 'name' | 'gpu_type_id'> = new Gauge({
    name: 'podwarden_pod_cost_dollars_per_hour',
    help: "What the Pod costs per hour as the API's cost field last reported it (0 unless it holds a machine); absent once the Pod is gone.",
    labelNames: ['account', 'pod_id', 'name', 'gpu_type_id'],
    registers: [registry],
    collect() {
      cost.reset();
      for (const pod of livePodsOf(context)) {
        cost.set(
          { account: pod.account, pod_id: pod.podId, name: pod.name, gpu_type_id: pod.gpuTypeId ?? '' },
          pod.costPerHr,
        );
      }
    },
  });
  const info: Gauge<'account' | 'pod_id' | 'name' | 'status' | 'gpu_type_id' | 'data_center_id' | 'cloud'> = new Gauge({
    name: 'podwarden_pod_info',
    help: 'Always 1: the Pod with its name, status, GPU type, data center and cloud as last listed; absent once the Pod is gone.',
    labelNames: ['account', 'pod_id', 'name', 'status', 'gpu_type_id', 'data_center_id', 'cloud'],
    registers: [registry],
    collect() {
      info.reset();
      for (const pod of livePodsOf(context)) {
        info.set(
          {
            account: pod.account,
            pod_id: pod.podId,
            name: pod.name,
            status: pod.status,
            gpu_type_id: pod.gpuTypeId ?? '',
            data_center_id: pod.dataCenterId ?? '',
            cloud: pod.cloud ?? '',
          },
          1,
        );
      }
    },
  });
  const gpus: Gauge<'account' | 'pod_id'> = new Gauge({
    name: 'podwarden_pod_gpus',
    help: 'How many GPUs the Pod has; absent for a CPU Pod and once the Pod is gone.',
    labelNames: ['account', 'pod_id'],
    registers: [registry],
    collect() {
      gpus.reset();
      for (const pod of livePodsOf(context)) {
        if (pod.gpuCount !== null) gpus.set({ account: pod.account, pod_id: pod.podId }, pod.gpuCount);
      }
    },
  });
}
