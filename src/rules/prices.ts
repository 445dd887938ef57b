/**
 * RunPod's published storage prices (docs: pods/pricing, storage/network-volumes), for the cost of
 * things billing has not reported yet or does not itemise. Where billing reports a resource's
 * spend, rules use the billed rate instead.
 */

/** RunPod bills storage per GB-month of 730 hours. */
export const HOURS_PER_MONTH = 730;

/** A Pod's volume disk per GB-month: while it runs, and while it is stopped (twice as much). */
export const POD_VOLUME_RUNNING_PER_GB_MONTH = 0.1;
export const POD_VOLUME_STOPPED_PER_GB_MONTH = 0.2;

/** Pod statuses in which the volume disk is billed at the stopped rate. */
export const STOPPED_STATUSES: readonly string[] = ['EXITED', 'ERROR'];

/** A Pod's volume disk, USD per hour. */
export function podVolumePerHour(volumeGb: number | null, status: string): number {
  if (!volumeGb || status === 'TERMINATED') return 0;
  const perGbMonth = STOPPED_STATUSES.includes(status)
    ? POD_VOLUME_STOPPED_PER_GB_MONTH
    : POD_VOLUME_RUNNING_PER_GB_MONTH;
  return (volumeGb * perGbMonth) / HOURS_PER_MONTH;
}

/**
 * A network volume, USD per month: standard $0.07/GB for the first 1,000 GB and $0.05 beyond;
 * HIGH_PERFORMANCE at $0.14/GB is not published by RunPod (our assumption, as the simulator's).
 */
export function networkVolumePerMonth(sizeGb: number, type: string | null): number {
  if (type === 'HIGH_PERFORMANCE') return sizeGb * 0.14;
  return Math.min(sizeGb, 1_000) * 0.07 + Math.max(0, sizeGb - 1_000) * 0.05;
}
