import { Gauge } from 'prom-client';
import { livePods } from '../db/pods.js';
import { accountNames, type MetricsContext } from './source.js';

/**
 * Each live Pod's cost and description from the pods table, set after every Pod poll. The
 * gauges are reset and refilled then, so a Pod that vanished from the account has no series.
 */
export function registerPodMetrics(context: MetricsContext): void {
  const { registry } = context;
  const cost = new Gauge({
    name: 'podwarden_pod_cost_dollars_per_hour',
    help: "What the Pod costs per hour as the API's cost field last reported it (0 unless it holds a machine); absent once the Pod is gone.",
    labelNames: ['account', 'pod_id', 'name', 'gpu_type_id'],
    registers: [registry],
  });
  const info = new Gauge({
    name: 'podwarden_pod_info',
    help: 'Always 1: the Pod with its name, status, GPU type, data center and cloud as last listed; absent once the Pod is gone.',
    labelNames: ['account', 'pod_id', 'name', 'status', 'gpu_type_id', 'data_center_id', 'cloud'],
    registers: [registry],
  });
  const gpus = new Gauge({
    name: 'podwarden_pod_gpus',
    help: 'How many GPUs the Pod has; absent for a CPU Pod and once the Pod is gone.',
    labelNames: ['account', 'pod_id'],
    registers: [registry],
  });

  context.refreshOn(['pods'], () => {
    cost.reset();
    info.reset();
    gpus.reset();
    for (const account of accountNames(context.config)) {
      for (const pod of livePods(context.source.db, account)) {
        const gpuTypeId = pod.gpuTypeId ?? '';
        cost.set({ account, pod_id: pod.podId, name: pod.name, gpu_type_id: gpuTypeId }, pod.costPerHr);
        info.set(
          {
            account,
            pod_id: pod.podId,
            name: pod.name,
            status: pod.status,
            gpu_type_id: gpuTypeId,
            data_center_id: pod.dataCenterId ?? '',
            cloud: pod.cloud ?? '',
          },
          1,
        );
        if (pod.gpuCount !== null) gpus.set({ account, pod_id: pod.podId }, pod.gpuCount);
      }
    }
  });
}
