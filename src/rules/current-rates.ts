import { HOUR_MS } from '../buckets.js';
import type { BillingKind } from '../db/schema.js';
import type { LiveResources } from '../db/snapshot-budget.js';
import type { ResourceSpend } from '../db/spend.js';
import { HOURS_PER_MONTH, networkVolumePerMonth, podVolumePerHour } from './prices.js';

/** What a resource costs now, and since when it has existed (for one never billed yet). */
export interface CurrentRate {
  perHour: number;
  since: number;
}

/**
 * The cost per hour of every live resource of one billing kind, from the latest collected state: a Pod's v2 `cost` plus its volume disk, a cluster's member Pods; for what has no price
 * in its state (serverless, network volumes, Public Endpoints), the rate billed over the recent
 * window. Resources gone are absent: they cost nothing more.
 */
export function currentRates(
  live: LiveResources,
  kind: BillingKind,
  billed: ReadonlyMap<string, ResourceSpend>,
  windowStart: number,
): Map<string, CurrentRate> {
  const rates = new Map<string, CurrentRate>();
  const billedRate = (resourceId: string): number | undefined => {
    const spend = billed.get(resourceId);
    if (!spend || spend.coveredThrough <= windowStart) return undefined;
    return spend.windowAmount / ((spend.coveredThrough - windowStart) / HOUR_MS);
  };
  switch (kind) {
    case 'pods':
      for (const pod of live.pods) {
        if (pod.clusterId !== null) continue;
        const perHour = pod.costPerHr + podVolumePerHour(pod.volumeGb, pod.status);
        rates.set(pod.podId, { perHour, since: pod.startedAt ?? pod.firstSeenAt });
      }
      break;
    case 'clusters': {
      const members = live.pods.filter((pod) => pod.clusterId !== null);
      for (const cluster of live.clusters) {
        const perHour = members
          .filter((pod) => pod.clusterId === cluster.clusterId)
          .reduce((sum, pod) => sum + pod.costPerHr + podVolumePerHour(pod.volumeGb, pod.status), 0);
        rates.set(cluster.clusterId, { perHour, since: cluster.createdAt ?? cluster.firstSeenAt });
      }
      break;
    }
    case 'serverless':
      for (const endpoint of live.endpoints) {
        rates.set(endpoint.endpointId, { perHour: billedRate(endpoint.endpointId) ?? 0, since: endpoint.firstSeenAt });
      }
      break;
    case 'network_volumes':
      for (const volume of live.networkVolumes) {
        const listed = networkVolumePerMonth(volume.sizeGb, volume.type) / HOURS_PER_MONTH;
        rates.set(volume.networkVolumeId, {
          perHour: billedRate(volume.networkVolumeId) ?? listed,
          since: volume.firstSeenAt,
        });
      }
      break;
    case 'endpoints':
    case 'account': {
      const perHour = billedRate('');
      if (perHour !== undefined) rates.set('', { perHour, since: windowStart });
      break;
    }
  }
  return rates;
}
