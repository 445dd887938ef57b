import type { Database } from '../../src/db/open.js';
import { type AccountSnapshot, readAccountSnapshot, type SnapshotWindow } from '../../src/db/snapshot.js';

/** An account's tick snapshot at `window.now` that reads, beside the live Pods, only what `window` asks. */
function snapshotAt(
  database: Database,
  account: string,
  window: Partial<SnapshotWindow> & { now: number },
): Promise<AccountSnapshot> {
  return readAccountSnapshot(database, account, {
    pollIntervalMs: 60_000,
    samplesFrom: window.now,
    busy: null,
    activityFrom: null,
    waste: null,
    capacityWatches: [],
    ...window,
  });
}

/**
 * The Pods with a known busiest-GPU figure above `above` from `from` on and none newer than `to`
 * (pod_util_peaks, as the snapshot reads it), in no particular order.
 */
export async function busyPods(
  database: Database,
  account: string,
  { from, above, to }: { from: number; above: number; to: number },
): Promise<string[]> {
  return [...(await snapshotAt(database, account, { now: to, busy: { from, above } })).busy];
}

/** The Pods whose latest sample is unknown and observed at or after `from` (pod_sample_ends, as the snapshot reads it). */
export async function unknownPodsSince(database: Database, account: string, from: number) {
  return (await snapshotAt(database, account, { now: from, activityFrom: from })).activity;
}
