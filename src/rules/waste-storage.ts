import type { Config } from '../config/schema.js';
import type { PodRecord } from '../db/pods.js';
import type { AccountSnapshot } from '../db/snapshot.js';
import { formatUsd } from '../format.js';
import type { Finding } from './finding.js';
import { HOURS_PER_MONTH, networkVolumePerMonth, podVolumePerHour, STOPPED_STATUSES } from './prices.js';
import { billedPerHour, paidFor, roughDuration, wasteFinding } from './waste-findings.js';

/**
 * Network volumes no live Pod has mounted for `volumeUnmounted`: unmounted since the last Pod
 * holding one went away, or since we first saw the volume if no Pod ever did. The cost per
 * month is the rate billed over the last day, or the published price.
 */
export function unmountedVolumeFindings(snapshot: AccountSnapshot, config: Config, now: number): Finding[] {
  const { account, waste } = snapshot;
  if (!waste) return [];
  const { volumeUnmountedMs, recipients } = config.waste;
  const { windowStart, spend } = waste.volumeSpend;
  const { mounted, lastMountedAt } = waste.volumeMounts;
  return waste.networkVolumes.flatMap((volume) => {
    if (mounted.has(volume.networkVolumeId)) return [];
    const since = Math.max(lastMountedAt.get(volume.networkVolumeId) ?? volume.firstSeenAt, volume.firstSeenAt);
    if (now - since < volumeUnmountedMs) return [];
    const billed = billedPerHour(spend.get(volume.networkVolumeId), windowStart);
    const perMonth = billed === null ? networkVolumePerMonth(volume.sizeGb, volume.type) : billed * HOURS_PER_MONTH;
    return wasteFinding({
      account,
      check: 'volume-unmounted',
      resource: { network_volume_id: volume.networkVolumeId },
      summary:
        `Network volume ${volume.name} (${volume.networkVolumeId}, ${volume.sizeGb} GB): ` +
        `no Pod has mounted it for ${roughDuration(now - since)}, ${formatUsd(perMonth)}/month`,
      now,
      details: {
        resourceName: volume.name,
        since,
        sinceIsLowerBound: since === volume.firstSeenAt,
        costPerHour: perMonth / HOURS_PER_MONTH,
        sizeGb: volume.sizeGb,
        hint: 'delete the volume if its data is not needed, or mount it where it is',
      },
      recipients,
    });
  });
}

/**
 * Stopped Pods that have paid for their volume disk for `stoppedPodVolume`: stopped since their
 * billed compute last ended or, with none in the stored history, since that history begins
 * (or, when the history reaches further, for "over" twice the threshold).
 */
export function stoppedPodVolumeFindings(snapshot: AccountSnapshot, config: Config, now: number): Finding[] {
  const { account, waste } = snapshot;
  if (!waste) return [];
  const { stoppedPodVolumeMs, recipients } = config.waste;
  // Looking twice the threshold back is enough to decide; a Pod stopped for longer is "over" that.
  const lookback = now - 2 * stoppedPodVolumeMs;
  const history = waste.podsBilledSince;
  return stoppedWithVolume(snapshot.pods).flatMap((pod) => {
    const lastRan = waste.lastComputeAt.get(pod.podId);
    if (lastRan === undefined && history === undefined) return [];
    const since = lastRan ?? Math.max(history ?? lookback, pod.createdAt ?? lookback, lookback);
    if (now - since < stoppedPodVolumeMs) return [];
    // No compute in what we looked at: the Pod stopped before `since` (the lookback, or where the
    // stored history begins), so the time is a lower bound, unless the Pod was created then.
    const atLeast = lastRan === undefined && since !== pod.createdAt;
    const perHour = podVolumePerHour(pod.volumeGb, pod.status);
    return wasteFinding({
      account,
      check: 'stopped-pod-volume',
      resource: { pod_id: pod.podId },
      summary:
        `Stopped Pod ${pod.name} (${pod.podId}) has paid for its ${pod.volumeGb} GB volume for ` +
        `${atLeast ? 'over ' : ''}${roughDuration(now - since)}: ${formatUsd(perHour * 24)}/day, ` +
        `${atLeast ? 'at least ' : ''}${formatUsd(paidFor(perHour, now - since))} so far`,
      now,
      details: {
        resourceName: pod.name,
        since,
        sinceIsLowerBound: atLeast,
        costPerHour: perHour,
        sizeGb: pod.volumeGb,
        hint: 'terminate the Pod if its volume is not needed (a network volume keeps data for less)',
      },
      recipients,
      severity: 'info',
    });
  });
}

/** The account's stopped Pods that keep a volume (cluster members aside). */
function stoppedWithVolume(live: readonly PodRecord[]): PodRecord[] {
  return live.filter(
    (pod) => STOPPED_STATUSES.includes(pod.status) && (pod.volumeGb ?? 0) > 0 && pod.clusterId === null,
  );
}
