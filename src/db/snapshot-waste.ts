import { bucketFloor } from '../buckets.js';
import { getBackfillSync } from './billing.js';
import type { Database } from './open.js';
import type { PodRecord } from './pods.js';
import type { BucketSize } from './schema.js';
import { type EndpointRecord, liveEndpointRows } from './serverless.js';
import { type ResourceSpend, spendSinceSync } from './spend.js';
import { liveNetworkVolumeRows, type NetworkVolumeRecord } from './volumes.js';
import {
  type EndpointActivity,
  endpointActivityRows,
  lastComputeRows,
  type VolumeMounts,
  volumeMounts,
} from './waste.js';

/** How far back the waste checks look at `now` (times before their bucket flooring). */
export interface WasteWindow {
  bucketSize: BucketSize;
  endpointActivityFrom: number;
  endpointSpendFrom: number;
  /** From when the rate of endpoints meant to scale to zero counts (their idle workers' rate). */
  scaleDownSpendFrom: number;
  volumeSpendFrom: number;
  computeFrom: number;
}

/** What billing says each resource of a kind cost from `windowStart` (a bucket boundary) on. */
export interface BilledSince {
  windowStart: number;
  spend: ReadonlyMap<string, ResourceSpend>;
}

/** What the waste checks read of one account at the tick's start. */
export interface WasteSnapshot {
  endpoints: readonly EndpointRecord[];
  endpointActivity: readonly EndpointActivity[];
  endpointSpend: BilledSince;
  /** The same over the scale-down limit: the rate of workers that should have stopped. */
  scaleDownSpend: BilledSince;
  networkVolumes: readonly NetworkVolumeRecord[];
  volumeMounts: VolumeMounts;
  volumeSpend: BilledSince;
  /** When the billed compute of each Pod not running with a volume last ended since `computeFrom`. */
  lastComputeAt: ReadonlyMap<string, number>;
  /** Where the account's stored Pod billing history begins (undefined: none yet). */
  podsBilledSince: number | undefined;
}

export function readWasteSnapshot(
  database: Database,
  account: string,
  pods: readonly PodRecord[],
  window: WasteWindow,
  now: number,
): WasteSnapshot {
  const { bucketSize } = window;
  const billed = (kind: 'serverless' | 'network_volumes', from: number): BilledSince => {
    const windowStart = bucketFloor(from, bucketSize);
    return { windowStart, spend: spendSinceSync(database, { account, kind, bucketSize, windowStart, now }) };
  };
  // Every Pod that may be stopped with a volume: the check picks the stopped ones among them.
  const notRunning = pods
    .filter((pod) => pod.status !== 'RUNNING' && (pod.volumeGb ?? 0) > 0 && pod.clusterId === null)
    .map((pod) => pod.podId);
  return {
    endpoints: liveEndpointRows(database, account),
    endpointActivity: endpointActivityRows(database, account, window.endpointActivityFrom),
    endpointSpend: billed('serverless', window.endpointSpendFrom),
    scaleDownSpend: billed('serverless', window.scaleDownSpendFrom),
    networkVolumes: liveNetworkVolumeRows(database, account),
    volumeMounts: volumeMounts(database, account, pods),
    volumeSpend: billed('network_volumes', window.volumeSpendFrom),
    lastComputeAt: lastComputeRows(database, account, bucketSize, notRunning, window.computeFrom),
    podsBilledSince: getBackfillSync(database, { account, kind: 'pods', bucketSize })?.cursorStartTime,
  };
}
