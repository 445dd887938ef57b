import { beginBackfill, upsertBillingRecords } from '../../src/db/billing.js';
import type { Database } from '../../src/db/open.js';
import { type PodInput, syncPods } from '../../src/db/pods.js';
import type { BillingKind } from '../../src/db/schema.js';
import { type NetworkVolumeInput, syncNetworkVolumes } from '../../src/db/volumes.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const ACCOUNT = 'sim';

/** A Pod row as the pods collector writes it, with the fields a test cares about. */
export function pod(overrides: Partial<PodInput> & { podId: string }): PodInput {
  return {
    name: overrides.podId,
    status: 'RUNNING',
    costPerHr: 0,
    gpuTypeId: 'NVIDIA L40S',
    gpuCount: 1,
    cpuTypeId: null,
    cloud: 'SECURE',
    dataCenterId: 'US-KS-2',
    clusterId: null,
    clusterRole: null,
    volumeGb: null,
    networkVolumeId: null,
    env: {},
    actions: [],
    locked: 0,
    createdAt: null,
    startedAt: null,
    ...overrides,
  };
}

export function volume(overrides: Partial<NetworkVolumeInput> & { networkVolumeId: string }): NetworkVolumeInput {
  return { name: overrides.networkVolumeId, sizeGb: 100, dataCenterId: 'US-KS-2', type: 'STANDARD', ...overrides };
}

export async function storePods(database: Database, pods: PodInput[], now: number): Promise<void> {
  await syncPods(database, ACCOUNT, pods, now);
}

export async function storeVolumes(database: Database, volumes: NetworkVolumeInput[], now: number): Promise<void> {
  await syncNetworkVolumes(database, ACCOUNT, volumes, now);
}

/**
 * Hourly billing as the billing collector stores it, each hour read right after it ended: one
 * record per resource and hour in [from, to) at `perHour` (the amount a `field` of the record).
 */
export async function billHourly(
  database: Database,
  kind: BillingKind,
  resourceId: string,
  perHour: number,
  from: number,
  to: number,
  field = 'gpuAmount',
): Promise<void> {
  for (let start = from; start < to; start += HOUR) {
    await upsertBillingRecords(
      database,
      ACCOUNT,
      [
        {
          kind,
          resourceId,
          bucketSize: 'hour',
          startTime: start,
          endTime: start + HOUR,
          totalAmount: perHour,
          amounts: { totalAmount: perHour, [field]: perHour },
        },
      ],
      start + HOUR,
    );
  }
}

/** Billing history is known from `since` for these kinds (as after a finished backfill). */
export async function historyFrom(database: Database, since: number, kinds: BillingKind[]): Promise<void> {
  for (const kind of kinds) {
    await beginBackfill(
      database,
      { account: ACCOUNT, kind, bucketSize: 'hour' },
      { from: since, targetStartTime: since },
    );
  }
}
