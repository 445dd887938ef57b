import type { Config } from '../config/schema.js';
import type { AccountSnapshot } from '../db/snapshot.js';
import { formatUsd } from '../format.js';
import type { Finding } from './finding.js';
import { paidFor, roughDuration, wasteFinding } from './waste-findings.js';

/**
 * RUNNING Pods that keep being polled but report no runtime for `stuckStarting`: paid for while
 * they start (or hang) without running anything we can see. The latest sample must be
 * recent and without runtime, so a Pod we simply stopped polling is not accused.
 */
export function stuckPodFindings(snapshot: AccountSnapshot, config: Config, now: number): Finding[] {
  // The snapshot's activity reaches back twice stuckStarting: a Pod without a sample since is not judged.
  const { account, activity } = snapshot;
  const { stuckStartingMs, recipients } = config.waste;
  return snapshot.pods.flatMap((pod) => {
    const seen = pod.status === 'RUNNING' ? activity.get(pod.podId) : undefined;
    // Listed only when its latest sample has no runtime data: one with it rules the Pod out.
    if (!seen || now - seen.latestAt > stuckStartingMs / 2) return [];
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
