import { collectorsFeeding } from '../collectors/index.js';
import { livePods } from '../db/pods.js';
import { pods } from '../db/schema.js';
import { accountGauge } from './account-series.js';
import { type MetricsContext, refreshedAccounts } from './source.js';

/**
 * Each live Pod's cost and description from the pods table, set after every Pod poll of its
 * account. The account's series are replaced then, so a Pod that vanished has no series.
 */
export function registerPodMetrics(context: MetricsContext): void {
  const { registry } = context;
  const cost = accountGauge(registry, {
    name: 'podwarden_pod_cost_dollars_per_hour',
    help: "What the Pod costs per hour as the API's cost field last reported it (0 unless it holds a machine); absent once the Pod is gone.",
    labelNames: ['account', 'pod_id', 'name', 'gpu_type_id'],
  });
  const info = accountGauge(registry, {
    name: 'podwarden_pod_info',
    help: 'Always 1: the Pod with its name, status, GPU type, data center and cloud as last listed; absent once the Pod is gone.',
    labelNames: ['account', 'pod_id', 'name', 'status', 'gpu_type_id', 'data_center_id', 'cloud'],
  });
  const gpus = accountGauge(registry, {
    name: 'podwarden_pod_gpus',
    help: 'How many GPUs the Pod has; absent for a CPU Pod and once the Pod is gone.',
    labelNames: ['account', 'pod_id'],
  });

  context.refreshOn(collectorsFeeding(pods), async (at) => {
    for (const account of refreshedAccounts(context.config, at)) {
      const pods = await livePods(context.source.db, account);
      for (const series of [cost, info, gpus]) series.clear(account);
      for (const pod of pods) {
        const gpuTypeId = pod.gpuTypeId ?? '';
        cost.set(account, { account, pod_id: pod.podId, name: pod.name, gpu_type_id: gpuTypeId }, pod.costPerHr);
        info.set(
          account,
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
        if (pod.gpuCount !== null) gpus.set(account, { account, pod_id: pod.podId }, pod.gpuCount);
      }
    }
  });
}
