import { toIso } from '../../clock.js';
import type { EnforceEpisodeRecord } from '../../db/enforce-state.js';
import type { PodRecord } from '../../db/pods.js';
import type { GuardResult } from '../../db/tables/idle.js';
import { formatDuration } from '../../duration.js';
import type { Finding } from '../../rules/finding.js';
import type { EnforceDetails } from '../../rules/finding-details.js';
import { savingPerHr } from '../saving.js';
import type { StopCandidate } from './candidate.js';
import { dueAt } from './steps.js';

/**
 * The findings of the enforcement ladder, appended every evaluation while their condition holds;
 * the alert pipeline makes alerts and mails of them (rule `enforce`).
 */

const podLabel = (pod: PodRecord) => (pod.name === pod.podId ? pod.podId : `${pod.name} (${pod.podId})`);
const money = (usd: number) => `$${usd.toFixed(2)}/h`;
const WORDS: Record<StopCandidate['kind'], string> = {
  deadline: 'deadline',
  schedule: 'schedule',
  budget_cap: 'budget cap',
};

function labels(account: string, c: StopCandidate): Record<string, string> {
  return {
    rule: 'enforce',
    account,
    pod_id: c.pod.podId,
    pod_name: c.pod.name,
    kind: c.kind,
    control: c.control,
  };
}

function details(
  c: StopCandidate,
  episode: EnforceEpisodeRecord,
  now: number,
  stage: EnforceDetails['stage'],
): EnforceDetails {
  return {
    kind: 'enforce',
    stage,
    enforceKind: c.kind,
    control: c.control,
    why: c.why,
    podId: c.pod.podId,
    podName: c.pod.name,
    gpuTypeId: c.pod.gpuTypeId,
    gpuCount: c.pod.gpuCount,
    costPerHr: c.pod.costPerHr,
    savingPerHr: savingPerHr(c.pod),
    stopAt: dueAt(c, episode),
    extendedMs: episode.extendedMs,
    extendByMs: c.extendByMs,
    occurrence: episode.occurrence,
    warnedAt: episode.warnedAt,
    warnLeadMs: c.warnLeadMs,
    locked: c.pod.locked === 1,
    decidedAt: episode.decidedAt,
    dryRun: c.dryRun,
    evaluatedAt: now,
  };
}

/**
 * The warning (stage `warn`), then the stop (stage `stop`) of one episode. One alert per
 * occurrence and extension: a Keep running that moved the stop is warned again by a mail of its own,
 * and the stop's delivery guard counts only the mails of this warning (stops.ts).
 */
export function enforceWarnFinding(
  account: string,
  c: StopCandidate,
  episode: EnforceEpisodeRecord,
  now: number,
): Finding {
  const stopAt = dueAt(c, episode);
  const when =
    episode.decidedAt !== null
      ? `stop decided at ${toIso(episode.decidedAt)}${c.dryRun ? ' (dry run: none was sent)' : ''}`
      : c.dryRun
        ? `would be stopped at ${toIso(stopAt)} (dry run: no stop is sent)`
        : `will be stopped at ${toIso(stopAt)} or later`;
  return {
    rule: 'enforce',
    key: warnKey(account, c.pod.podId, c.kind),
    account,
    severity: 'warning',
    summary: `Pod ${podLabel(c.pod)} at ${money(c.pod.costPerHr)}, ${WORDS[c.kind]} ${c.control}: ${c.why}; ${when}`,
    labels: { ...labels(account, c), stage: 'warn', occurrence: occurrenceOf(episode) },
    occurrenceLabel: 'occurrence',
    details: details(c, episode, now, episode.decidedAt === null ? 'warn' : 'stop'),
  };
}

/** The alert key of a Pod's enforcement warning of one kind (the delivery guard looks its mails up by it). */
export const warnKey = (account: string, podId: string, kind: StopCandidate['kind']) =>
  `enforce:${account}:${podId}:${kind}:warn`;

/** Names the spell the warning is about: its occurrence, and the extension that moved its stop. */
function occurrenceOf(episode: EnforceEpisodeRecord): string {
  const base = toIso(episode.occurrence);
  return episode.extendedMs === 0 ? base : `${base} +${formatDuration(episode.extendedMs)}`;
}

/** The stop request keeps failing. */
export function enforceNotStoppedFinding(
  account: string,
  c: StopCandidate,
  episode: EnforceEpisodeRecord,
  now: number,
  detail: string,
): Finding {
  return {
    rule: 'enforce',
    key: `enforce:${account}:${c.pod.podId}:${c.kind}:stop-failed`,
    account,
    severity: 'critical',
    summary: `Pod ${podLabel(c.pod)} could not be stopped (${WORDS[c.kind]} ${c.control}): ${detail}`,
    labels: { ...labels(account, c), stage: 'stop-failed' },
    details: { ...details(c, episode, now, 'not-stopped'), detail },
  };
}

/** One evaluation would stop too many of the account's running Pods: none is stopped. */
export function enforceBlastRadiusFinding(account: string, guard: GuardResult, podIds: string[]): Finding {
  return {
    rule: 'enforce',
    key: `enforce:${account}:blast-radius`,
    account,
    severity: 'critical',
    summary: `Enforcement would stop ${podIds.length} Pods of ${account} at once: ${guard.detail}`,
    labels: { rule: 'enforce', account, stage: 'blast-radius' },
    details: { kind: 'idle-blast-radius', idleRule: 'enforce', podIds, detail: guard.detail },
  };
}
