import type { PodRecord } from '../db/pods.js';
import { podVolumePerHour } from '../rules/prices.js';

/**
 * USD per hour that stopping the Pod saves: its cost minus what its volume disk still costs
 * once stopped (a stopped Pod keeps paying for it, at the stopped rate).
 */
export function savingPerHr(pod: Pick<PodRecord, 'costPerHr' | 'volumeGb'>): number {
  return Math.max(0, pod.costPerHr - podVolumePerHour(pod.volumeGb, 'EXITED'));
}
