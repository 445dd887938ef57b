import type { Config } from '../config/schema.js';
import { allOpenEpisodes } from '../db/idle-state.js';
import type { Database } from '../db/open.js';
import { livePods, type PodRecord } from '../db/pods.js';
import { idleSince } from './idle-findings.js';
import { type LadderPhase, ladderPhase, plannedStopAt } from './ladder.js';
import { savingPerHr } from './saving.js';

/** A Pod the idle ladder holds now, with the countdown to its planned stop (for metrics and /api/status). */
export interface IdleCandidate {
  account: string;
  podId: string;
  podName: string;
  /** The idle rule that owns the episode. */
  rule: string;
  phase: LadderPhase;
  /** When the idle evidence began (at least a window before the episode opened). */
  idleSince: number;
  notifiedAt: number | null;
  warnedAt: number | null;
  /** When the stop is planned; null when the rule never stops it (or not warned yet). */
  plannedStopAt: number | null;
  /** Milliseconds until the planned stop (0 when due), null without one. */
  msToStop: number | null;
  decidedAt: number | null;
  stopFailures: number;
  dryRun: boolean;
  costPerHr: number;
  savingPerHr: number;
}

/**
 * Every open idle episode as of the last evaluation, ordered by account and Pod. Reads stored
 * state only (episodes and Pods), never the API; the phase and countdown are derived at `now`.
 */
export async function idleCandidates(database: Database, config: Config, now: number): Promise<IdleCandidate[]> {
  const rules = new Map(config.idle.rules.map((rule) => [rule.name, rule]));
  const episodes = await allOpenEpisodes(database);
  const pods = new Map<string, PodRecord>();
  for (const account of new Set(episodes.map((episode) => episode.account))) {
    for (const pod of await livePods(database, account)) pods.set(`${account}\u0000${pod.podId}`, pod);
  }
  const candidates: IdleCandidate[] = [];
  for (const episode of episodes) {
    const rule = rules.get(episode.rule);
    const pod = pods.get(`${episode.account}\u0000${episode.podId}`);
    if (!rule || !pod) continue;
    const stopAt = plannedStopAt(rule, episode);
    candidates.push({
      account: episode.account,
      podId: episode.podId,
      podName: pod.name,
      rule: rule.name,
      phase: ladderPhase(rule, episode, now),
      idleSince: idleSince(rule, episode),
      notifiedAt: episode.notifiedAt,
      warnedAt: episode.warnedAt,
      plannedStopAt: stopAt,
      msToStop: stopAt === null ? null : Math.max(0, stopAt - now),
      decidedAt: episode.decidedAt,
      stopFailures: episode.stopFailures,
      dryRun: rule.dryRun,
      costPerHr: pod.costPerHr,
      savingPerHr: savingPerHr(pod),
    });
  }
  return candidates.sort((a, b) => a.account.localeCompare(b.account) || a.podId.localeCompare(b.podId));
}
