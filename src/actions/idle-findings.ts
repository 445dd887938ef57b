import { toIso } from '../clock.js';
import type { IdleRuleConfig } from '../config/sections/idle.js';
import type { IdleEpisodeRecord } from '../db/idle-state.js';
import type { PodRecord } from '../db/pods.js';
import type { GuardResult } from '../db/tables/idle.js';
import { formatDuration } from '../duration.js';
import type { Finding } from '../rules/finding.js';
import type {
  HealthDetails,
  IdleBlastRadiusDetails,
  IdleClusterDetails,
  IdleDetails,
  IdleNotStoppedDetails,
  IdleStage,
  UtilizationDetail,
} from '../rules/finding-details.js';
import type { IdleCluster } from '../rules/idle.js';
import { IGNORE_ENV } from '../rules/idle-match.js';
import type { WindowEvidence } from '../rules/idle-samples.js';
import type { PodsFreshness } from './guards.js';
import { plannedStopAt } from './ladder.js';
import type { Judged } from './ladder-steps.js';
import { savingPerHr } from './saving.js';

/**
 * The findings of the idle ladder, one builder each. They are appended to the tick's list every
 * evaluation while their condition holds; the alert pipeline makes alerts and emails of them.
 */

const MINUTE = 60_000;
const money = (usd: number) => `$${usd.toFixed(2)}/h`;
const minutes = (ms: number) => formatDuration(Math.max(0, Math.floor(ms / MINUTE)) * MINUTE);
const podLabel = (pod: PodRecord) => (pod.name === pod.podId ? pod.podId : `${pod.name} (${pod.podId})`);

function podLabels(account: string, pod: PodRecord, rule: IdleRuleConfig): Record<string, string> {
  return {
    rule: 'idle',
    account,
    pod_id: pod.podId,
    pod_name: pod.name,
    idle_rule: rule.name,
    gpu_type_id: pod.gpuTypeId ?? '',
  };
}

/** The idle evidence began at least a window before the episode opened. */
export function idleSince(rule: IdleRuleConfig, episode: Pick<IdleEpisodeRecord, 'startedAt'>): number {
  return episode.startedAt - rule.windowMs;
}

/** How many columns the utilization sparkline of a message has. */
const SPARK_BUCKETS = 24;

/**
 * The window's utilization in equal buckets, each the busiest sample's figure; a bucket with no
 * known sample is null (unknown is drawn as a gap, never as idle).
 */
function utilizationOf(evidence: WindowEvidence | undefined, threshold: number): UtilizationDetail | null {
  if (!evidence || evidence.to <= evidence.from) return null;
  // Read from the columns: two findings per idle Pod per tick would otherwise list every sample as an object.
  const { gpu, memory } = evidence.peaks(SPARK_BUCKETS);
  return { from: evidence.from, to: evidence.to, gpu, memory, threshold };
}

function podDetails(
  a: Judged,
  episode: IdleEpisodeRecord,
  now: number,
  stage: IdleStage,
  stopAt: number | null,
): IdleDetails {
  return {
    kind: 'idle',
    stage,
    podId: a.pod.podId,
    podName: a.pod.name,
    gpuTypeId: a.pod.gpuTypeId,
    gpuCount: a.pod.gpuCount,
    idleRule: a.rule.name,
    reason: a.reason,
    idleSince: idleSince(a.rule, episode),
    evaluatedAt: now,
    costPerHr: a.pod.costPerHr,
    savingPerHr: savingPerHr(a.pod),
    utilization: utilizationOf(a.evidence, a.rule.utilThreshold),
    stopAt,
    warnedAt: episode.warnedAt,
    warnLeadMs: a.rule.warnLeadMs,
    locked: a.pod.locked === 1,
    decidedAt: episode.decidedAt,
    dryRun: a.rule.dryRun,
  };
}

/** notify: the Pod is idle (or held-idle, its own finding). */
export function idleFinding(account: string, a: Judged, episode: IdleEpisodeRecord, now: number): Finding {
  const held = a.verdict === 'held_idle';
  const idleFor = minutes(now - idleSince(a.rule, episode));
  return {
    rule: 'idle',
    key: `idle:${account}:${a.pod.podId}${held ? ':held' : ''}`,
    account,
    severity: 'info',
    summary: held
      ? `Pod ${podLabel(a.pod)} held-idle for ${idleFor} at ${money(a.pod.costPerHr)}: GPU memory in use, no compute`
      : `Pod ${podLabel(a.pod)} idle for ${idleFor} at ${money(a.pod.costPerHr)}`,
    labels: held ? { ...podLabels(account, a.pod, a.rule), held: 'true' } : podLabels(account, a.pod, a.rule),
    details: podDetails(a, episode, now, held ? 'held' : 'idle', plannedStopAt(a.rule, episode)),
  };
}

/** warn: names the Pod, how long idle, its cost, when it will be stopped and how to postpone. */
export function warnFinding(account: string, a: Judged, episode: IdleEpisodeRecord, now: number): Finding {
  const { pod, rule } = a;
  const stopAt = plannedStopAt(rule, episode);
  const postpone = [`podwarden snooze ${pod.podId} DURATION`, `set ${IGNORE_ENV}=true in the Pod's env`];
  const when =
    stopAt === null
      ? 'this rule does not stop Pods'
      : episode.decidedAt !== null
        ? `stop decided at ${toIso(episode.decidedAt)}${rule.dryRun ? ' (dry run: none was sent)' : ''}`
        : rule.dryRun
          ? `would be stopped at ${toIso(stopAt)} (dry run: no stop is sent)`
          : `will be stopped at ${toIso(stopAt)} (in ${minutes(stopAt - now)}) unless it gets busy`;
  return {
    rule: 'idle',
    key: `idle:${account}:${pod.podId}:warn`,
    account,
    severity: 'warning',
    summary: `Pod ${podLabel(pod)} idle for ${minutes(now - idleSince(rule, episode))} at ${money(pod.costPerHr)}: ${when}; postpone with \`${postpone[0]}\` or ${postpone[1]}`,
    // One alert per idle spell: a new spell's warning is a new alert, mailed on its own, and the
    // stop guard counts only the mails of this spell's (idle-stops.ts).
    labels: { ...podLabels(account, pod, rule), stage: 'warn', episode: toIso(episode.startedAt) },
    occurrenceLabel: 'episode',
    details: podDetails(a, episode, now, episode.decidedAt === null ? 'warn' : 'stop', stopAt),
  };
}

/** A stop a guard turned into an alert: the GPU type is scarce, or the stop request keeps failing. */
export function notStoppedFinding(account: string, a: Judged, why: 'scarce' | 'stop-failed', detail: string): Finding {
  const { pod, rule } = a;
  return {
    rule: 'idle',
    key: `idle:${account}:${pod.podId}:${why}`,
    account,
    severity: why === 'scarce' ? 'warning' : 'critical',
    summary:
      why === 'scarce'
        ? `Pod ${podLabel(pod)} is idle at ${money(pod.costPerHr)} but not stopped: ${detail}`
        : `Pod ${podLabel(pod)} could not be stopped: ${detail}`,
    labels: { ...podLabels(account, pod, rule), stage: why },
    details: {
      kind: 'idle-not-stopped',
      why,
      podId: pod.podId,
      podName: pod.name,
      costPerHr: pod.costPerHr,
      detail,
    } satisfies IdleNotStoppedDetails,
  };
}

export function blastRadiusFinding(
  account: string,
  rule: IdleRuleConfig,
  guard: GuardResult,
  podIds: string[],
): Finding {
  return {
    rule: 'idle',
    key: `idle:${account}:${rule.name}:blast-radius`,
    account,
    severity: 'critical',
    summary: `Idle rule ${rule.name} would stop ${podIds.length} Pods at once: ${guard.detail}`,
    labels: { rule: 'idle', account, idle_rule: rule.name, stage: 'blast-radius' },
    details: {
      kind: 'idle-blast-radius',
      idleRule: rule.name,
      podIds,
      detail: guard.detail,
    } satisfies IdleBlastRadiusDetails,
  };
}

export function clusterFinding(account: string, cluster: IdleCluster): Finding {
  return {
    rule: 'idle',
    key: `idle:${account}:cluster:${cluster.clusterId}`,
    account,
    severity: 'info',
    summary: `Cluster ${cluster.clusterId}: all ${cluster.podIds.length} Pods idle at ${money(cluster.costPerHr)} (clusters are never stopped)`,
    labels: { rule: 'idle', account, cluster_id: cluster.clusterId },
    details: { kind: 'idle-cluster', ...cluster } satisfies IdleClusterDetails,
  };
}

/** The Pod collector is stale: every stop of the account is frozen until it succeeds again. */
export function frozenFinding(account: string, freshness: PodsFreshness, now: number): Finding {
  const last = freshness.lastSuccessAt;
  return {
    rule: 'health',
    key: `health:${account}:idle-stops-frozen`,
    account,
    severity: 'critical',
    summary: `Idle stops frozen for ${account}: the Pod collector last succeeded ${last === null ? 'never' : `${minutes(now - last)} ago`} (limit ${formatDuration(freshness.limitMs)})`,
    labels: { rule: 'health', account, collector: 'pods' },
    details: {
      kind: 'health',
      check: 'idle-stops-frozen',
      collector: 'pods',
      lastSuccessAt: last,
      limitMs: freshness.limitMs,
      evaluatedAt: now,
    } satisfies HealthDetails,
  };
}
