import type { Config } from '../config/schema.js';
import type { PodRecord } from '../db/pods.js';
import type { AccountSnapshot } from '../db/snapshot.js';
import type { ResourceSpend } from '../db/spend.js';
import type { NetworkVolumeRecord } from '../db/volumes.js';
import type { VolumeMounts } from '../db/waste.js';
import { formatUsd } from '../format.js';
import type { Finding } from './finding.js';
import { HOURS_PER_MONTH, networkVolumePerMonth, podVolumePerHour, STOPPED_STATUSES } from './prices.js';
import { roughDuration, wasteFinding } from './waste-findings.js';

const HOUR_MS = 3_600_000;

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
  const unmounted = unmountedVolumes(waste.volumeMounts, spend, waste.networkVolumes, windowStart);
  const findings: Finding[] = [];
  for (const { volume, since, perMonth, cost } of unmounted) {
    if (now - since < volumeUnmountedMs) continue;
    findings.push(
      wasteFinding({
        account,
        check: 'volume-unmounted',
        resource: { network_volume_id: volume.networkVolumeId },
        summary:
          `Network volume ${volume.name} (${volume.networkVolumeId}, ${volume.sizeGb} GB): ` +
          `no Pod has mounted it for ${roughDuration(now - since)}, ${cost}/month`,
        details: {
          resourceId: volume.networkVolumeId,
          resourceName: volume.name,
          since,
          sinceIsLowerBound: since === volume.firstSeenAt,
          evaluatedAt: now,
          costPerHour: perMonth / HOURS_PER_MONTH,
          costPerDay: Math.round((perMonth / HOURS_PER_MONTH) * 24 * 100) / 100,
          paidSoFar: ((perMonth / HOURS_PER_MONTH) * (now - since)) / HOUR_MS,
          sizeGb: volume.sizeGb,
          workersUp: null,
          workersMin: null,
          hint: 'delete the volume if its data is not needed, or mount it where it is',
        },
        recipients,
      }),
    );
  }
  return findings;
}

/** The live volumes no live Pod mounts, unmounted since when, and at what monthly rate. */
function unmountedVolumes(
  mounts: VolumeMounts,
  billed: ReadonlyMap<string, ResourceSpend>,
  volumes: readonly NetworkVolumeRecord[],
  windowStart: number,
): Array<{ volume: NetworkVolumeRecord; since: number; perMonth: number; cost: string }> {
  return volumes.flatMap((volume) => {
    if (mounts.mounted.has(volume.networkVolumeId)) return [];
    const since = Math.max(mounts.lastMountedAt.get(volume.networkVolumeId) ?? volume.firstSeenAt, volume.firstSeenAt);
    const spend = billed.get(volume.networkVolumeId);
    const perMonth =
      spend && spend.coveredThrough > windowStart
        ? (spend.windowAmount / ((spend.coveredThrough - windowStart) / HOUR_MS)) * HOURS_PER_MONTH
        : networkVolumePerMonth(volume.sizeGb, volume.type);
    return [{ volume, since, perMonth, cost: formatUsd(perMonth) }];
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
  const stopped = stoppedWithVolume(snapshot.pods);
  if (stopped.length === 0) return [];
  // Looking twice the threshold back is enough to decide; a Pod stopped for longer is "over" that.
  const lookback = now - 2 * stoppedPodVolumeMs;
  const computed = waste.lastComputeAt;
  const history = waste.podsBilledSince;
  const priced = stopped.map((pod) => {
    const perHour = podVolumePerHour(pod.volumeGb, pod.status);
    return { pod, lastRan: computed.get(pod.podId), perHour, perDay: formatUsd(perHour * 24) };
  });
  const findings: Finding[] = [];
  for (const { pod, lastRan, perHour, perDay } of priced) {
    if (lastRan === undefined && history === undefined) continue;
    const since = lastRan ?? Math.max(history ?? lookback, pod.createdAt ?? lookback, lookback);
    if (now - since < stoppedPodVolumeMs) continue;
    // No compute in what we looked at: the Pod stopped before `since` (the lookback, or where the
    // stored history begins), so the time is a lower bound, unless the Pod was created then.
    const atLeast = lastRan === undefined && since !== pod.createdAt;
    const paid = (perHour * (now - since)) / HOUR_MS;
    findings.push(
      wasteFinding({
        account,
        check: 'stopped-pod-volume',
        resource: { pod_id: pod.podId },
        summary:
          `Stopped Pod ${pod.name} (${pod.podId}) has paid for its ${pod.volumeGb} GB volume for ` +
          `${atLeast ? 'over ' : ''}${roughDuration(now - since)}: ${perDay}/day, ` +
          `${atLeast ? 'at least ' : ''}${formatUsd(paid)} so far`,
        details: {
          resourceId: pod.podId,
          resourceName: pod.name,
          since,
          sinceIsLowerBound: atLeast,
          evaluatedAt: now,
          costPerHour: perHour,
          costPerDay: Math.round(perHour * 24 * 100) / 100,
          paidSoFar: paid,
          sizeGb: pod.volumeGb,
          workersUp: null,
          workersMin: null,
          hint: 'terminate the Pod if its volume is not needed (a network volume keeps data for less)',
        },
        recipients,
        severity: 'info',
      }),
    );
  }
  return findings;
}

/** The account's stopped Pods that keep a volume (cluster members aside). */
function stoppedWithVolume(live: readonly PodRecord[]): PodRecord[] {
  return live.filter(
    (pod) => STOPPED_STATUSES.includes(pod.status) && (pod.volumeGb ?? 0) > 0 && pod.clusterId === null,
  );
}
