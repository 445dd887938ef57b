import { BILLED_POD_STATUSES } from '../api/schemas.js';
import type { Config } from '../config/schema.js';
import type { PodRecord } from '../db/pods.js';
import type { UnknownSince } from '../db/sample-ends.js';
import type { AccountSnapshot } from '../db/snapshot.js';
import { formatUsd } from '../format.js';
import type { Finding } from './finding.js';
import { paidFor, roughDuration, wasteFinding } from './waste-findings.js';

/**
 * Pods billed for `stuckStarting` without running anything we can see: RUNNING with no runtime
 * data, or PROVISIONING/STARTING (billed at their `cost` from provisioning on) without reaching
 * RUNNING. Each poll of such a Pod is an unknown sample; the latest must be recent and unknown,
 * so a Pod we simply stopped polling is not accused.
 */
export function stuckPodFindings(snapshot: AccountSnapshot, config: Config, now: number): Finding[] {
  // The snapshot's activity reaches back twice stuckStarting: a Pod without a sample since is not judged.
  const { account, activity } = snapshot;
  const { stuckStartingMs, recipients } = config.waste;
  return snapshot.pods.flatMap((pod) => {
    const seen = BILLED_POD_STATUSES.includes(pod.status) ? activity.get(pod.podId) : undefined;
    // Listed only when its latest sample has no runtime data: one with it rules the Pod out.
    if (!seen || now - seen.latestAt > stuckStartingMs / 2) return [];
    if (pod.status !== 'RUNNING') return notRunningFinding(pod, seen, snapshot, config, now);
    const lastData = seen.lastKnownAt ?? seen.unknownSince;
    const noDataSince = Math.max(lastData, pod.startedAt ?? lastData);
    if (now - noDataSince < stuckStartingMs) return [];
    const neverStarted = seen.lastKnownAt === null || (pod.startedAt !== null && seen.lastKnownAt < pod.startedAt);
    return wasteFinding({
      account,
      check: 'stuck-starting',
      resource: { pod_id: pod.podId },
      summary:
        `Pod ${pod.name} (${pod.podId}) RUNNING with no runtime data for ${roughDuration(now - noDataSince)}` +
        `${neverStarted ? ' (stuck starting?)' : ''}: ${formatUsd(pod.costPerHr)}/h, ` +
        `${formatUsd(paidFor(pod.costPerHr, now - noDataSince))} so far`,
      now,
      details: {
        resourceName: pod.name,
        since: noDataSince,
        sinceIsLowerBound: false,
        costPerHour: pod.costPerHr,
        hint: neverStarted
          ? 'look at the Pod logs: it may be stuck starting (image pull, crash loop); stop it if so'
          : 'look at the Pod: it reports no runtime data; stop it if it is not working',
      },
      recipients,
    });
  });
}

/**
 * A PROVISIONING or STARTING Pod, billed since the first poll of its current unknown run (a
 * stopped Pod is not sampled, so the run begins when it was started again). v2 gives no time for
 * that start (`startedAt` is when it last reached RUNNING), so our polls are the clock; a run
 * already under way where the lookback begins is a lower bound ("over").
 */
function notRunningFinding(
  pod: PodRecord,
  seen: UnknownSince,
  snapshot: AccountSnapshot,
  config: Config,
  now: number,
): Finding[] {
  const { stuckStartingMs, recipients } = config.waste;
  const since = seen.unknownSince;
  if (now - since < stuckStartingMs) return [];
  const lookbackFrom = now - 2 * stuckStartingMs;
  const atLeast = seen.lastKnownAt === null && since - lookbackFrom < snapshot.pollIntervalMs;
  const over = atLeast ? 'over ' : '';
  return [
    wasteFinding({
      account: snapshot.account,
      check: 'stuck-starting',
      resource: { pod_id: pod.podId },
      summary:
        `Pod ${pod.name} (${pod.podId}) billed while ${pod.status} for ${over}${roughDuration(now - since)} ` +
        `without reaching RUNNING: ${formatUsd(pod.costPerHr)}/h, ` +
        `${atLeast ? 'at least ' : ''}${formatUsd(paidFor(pod.costPerHr, now - since))} so far`,
      now,
      details: {
        resourceName: pod.name,
        since,
        sinceIsLowerBound: atLeast,
        costPerHour: pod.costPerHr,
        podStatus: pod.status,
        hint:
          pod.status === 'PROVISIONING'
            ? 'no machine has come up for it: stop it (or terminate it) and create it again, elsewhere if need be'
            : 'its container does not come up: look at the Pod logs (image pull, start command) and stop it if so',
      },
      recipients,
    }),
  ];
}
