import type { PodRecord } from '../db/pods.js';

/**
 * RunPod's published price of a stopped Pod's volume disk, per GB-month of 730 hours: a stopped
 * Pod keeps paying for it, so stopping saves the running cost minus this.
 */
export const STOPPED_VOLUME_USD_PER_GB_MONTH = 0.2;
const HOURS_PER_MONTH = 730;

/** What the Pod still costs per hour once stopped (its volume disk). */
export function stoppedCostPerHr(pod: Pick<PodRecord, 'volumeGb'>): number {
  return ((pod.volumeGb ?? 0) * STOPPED_VOLUME_USD_PER_GB_MONTH) / HOURS_PER_MONTH;
}

/** USD per hour that stopping the Pod saves: its cost minus what its volume costs when stopped. */
export function savingPerHr(pod: Pick<PodRecord, 'costPerHr' | 'volumeGb'>): number {
  return Math.max(0, pod.costPerHr - stoppedCostPerHr(pod));
}
