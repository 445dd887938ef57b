import { bucketFloor } from '../collectors/billing-windows.js';
import type { Config } from '../config/schema.js';
import { getBackfill } from '../db/billing.js';
import type { Database } from '../db/open.js';
import { livePods } from '../db/pods.js';
import { spendSince } from '../db/spend.js';
import { liveNetworkVolumes } from '../db/volumes.js';
import { lastComputeAt, volumeMounts } from '../db/waste.js';
import { formatUsd } from '../messages/format.js';
import type { Finding } from './finding.js';
import { HOURS_PER_MONTH, networkVolumePerMonth, podVolumePerHour, STOPPED_STATUSES } from './prices.js';
import { roughDuration, wasteFinding } from './waste-findings.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * Network volumes no live Pod has mounted for `volumeUnmounted`: unmounted since the last Pod
 * holding one went away, or since we first saw the volume if no Pod ever did. The cost per
 * month is the rate billed over the last day, or the published price.
 */
export function unmountedVolumeFindings(database: Database, config: Config, account: string, now: number): Finding[] {
  const { volumeUnmountedMs, recipients } = config.waste;
  const bucketSize = config.collectors.billing.bucketSize;
  const mounts = volumeMounts(database, account);
  const windowStart = bucketFloor(now - DAY_MS, bucketSize);
  const billed = spendSince(database, { account, kind: 'network_volumes', bucketSize, windowStart, now });
  const findings: Finding[] = [];
  for (const volume of liveNetworkVolumes(database, account)) {
    const mount = mounts.get(volume.networkVolumeId);
    if (mount?.mountedNow) continue;
    const since = Math.max(mount?.lastMountedAt ?? volume.firstSeenAt, volume.firstSeenAt);
    if (now - since < volumeUnmountedMs) continue;
    const spend = billed.get(volume.networkVolumeId);
    const perMonth =
      spend && spend.coveredThrough > windowStart
        ? (spend.windowAmount / ((spend.coveredThrough - windowStart) / HOUR_MS)) * HOURS_PER_MONTH
        : networkVolumePerMonth(volume.sizeGb, volume.type);
    findings.push(
      wasteFinding({
        account,
        check: 'volume-unmounted',
        resource: { network_volume_id: volume.networkVolumeId },
        summary:
          `Network volume ${volume.name} (${volume.networkVolumeId}, ${volume.sizeGb} GB): ` +
          `no Pod has mounted it for ${roughDuration(now - since)}, ${formatUsd(perMonth)}/month`,
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

/**
 * Stopped Pods that have paid for their volume disk for `stoppedPodVolume`: stopped since their
 * billed compute last ended or, with none in the stored history, since that history begins
 * (or, when the history reaches further, for "over" twice the threshold).
 */
export function stoppedPodVolumeFindings(database: Database, config: Config, account: string, now: number): Finding[] {
  const { stoppedPodVolumeMs, recipients } = config.waste;
  const bucketSize = config.collectors.billing.bucketSize;
  const stopped = livePods(database, account).filter(
    (pod) => STOPPED_STATUSES.includes(pod.status) && (pod.volumeGb ?? 0) > 0 && pod.clusterId === null,
  );
  if (stopped.length === 0) return [];
  // Looking twice the threshold back is enough to decide; a Pod stopped for longer is "over" that.
  const lookback = now - 2 * stoppedPodVolumeMs;
  const ids = stopped.map((pod) => pod.podId);
  const computed = lastComputeAt(database, account, bucketSize, ids, lookback);
  const history = getBackfill(database, { account, kind: 'pods', bucketSize })?.cursorStartTime;
  const findings: Finding[] = [];
  for (const pod of stopped) {
    const lastRan = computed.get(pod.podId);
    if (lastRan === undefined && history === undefined) continue;
    const since = lastRan ?? Math.max(history ?? lookback, pod.createdAt ?? lookback, lookback);
    if (now - since < stoppedPodVolumeMs) continue;
    // No compute in what we looked at: the Pod stopped before `since` (the lookback, or where the
    // stored history begins), so the time is a lower bound, unless the Pod was created then.
    const atLeast = lastRan === undefined && since !== pod.createdAt;
    const perHour = podVolumePerHour(pod.volumeGb, pod.status);
    const paid = (perHour * (now - since)) / HOUR_MS;
    findings.push(
      wasteFinding({
        account,
        check: 'stopped-pod-volume',
        resource: { pod_id: pod.podId },
        summary:
          `Stopped Pod ${pod.name} (${pod.podId}) has paid for its ${pod.volumeGb} GB volume for ` +
          `${atLeast ? 'over ' : ''}${roughDuration(now - since)}: ${formatUsd(perHour * 24)}/day, ` +
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
