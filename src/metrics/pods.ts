import { collectorsFeeding } from '../collectors/index.js';
import { ownerOf } from '../config/owner-of.js';
import { livePods } from '../db/pods.js';
import { pods } from '../db/schema.js';
import { ownershipLabels } from '../rules/owner-labels.js';
import { gaugeTable } from './account-series.js';
import { type MetricsContext, refreshedAccounts } from './source.js';

/** Each live Pod's cost and description, replaced after every Pod poll: a vanished Pod has no series. */
export function registerPodMetrics(context: MetricsContext): void {
  const fill = gaugeTable<Awaited<ReturnType<typeof livePods>>[number]>(context.registry, [
    {
      name: 'podwarden_pod_cost_dollars_per_hour',
      help: "What the Pod costs per hour as the API's cost field last reported it (0 unless it holds a machine); absent once the Pod is gone.",
      labelNames: ['account', 'pod_id', 'name', 'gpu_type_id'],
      series: ({ account, podId, name, gpuTypeId, costPerHr }, set) =>
        set({ account, pod_id: podId, name, gpu_type_id: gpuTypeId ?? '' }, costPerHr),
    },
    {
      name: 'podwarden_pod_info',
      help: 'Always 1: the Pod with its name, status, GPU type, data center and cloud as last listed; absent once the Pod is gone.',
      labelNames: ['account', 'pod_id', 'name', 'status', 'gpu_type_id', 'data_center_id', 'cloud'],
      series: ({ account, podId, name, status, gpuTypeId, dataCenterId, cloud }, set) =>
        set(
          {
            account,
            pod_id: podId,
            name,
            status,
            gpu_type_id: gpuTypeId ?? '',
            data_center_id: dataCenterId ?? '',
            cloud: cloud ?? '',
          },
          1,
        ),
    },
    {
      name: 'podwarden_pod_owner_info',
      help: 'Always 1: who owns the Pod (owners), to join on pod_id; a label ownership does not name is absent, and a Pod with neither owner nor team has no series.',
      labelNames: ['account', 'pod_id', 'owner', 'team'],
      series: ({ account, podId, name, env }, set) => {
        const labels = ownershipLabels(ownerOf(context.config.owners, { name, env }));
        if (Object.keys(labels).length > 0) set({ account, pod_id: podId, ...labels }, 1);
      },
    },
    {
      name: 'podwarden_pod_gpus',
      help: 'How many GPUs the Pod has; absent for a CPU Pod and once the Pod is gone.',
      labelNames: ['account', 'pod_id'],
      series: ({ account, podId, gpuCount }, set) => {
        if (gpuCount !== null) set({ account, pod_id: podId }, gpuCount);
      },
    },
  ]);
  context.refreshOn(collectorsFeeding(pods), async (at) => {
    for (const account of refreshedAccounts(context.config, at))
      fill(await livePods(context.source.db, account), account);
  });
}
