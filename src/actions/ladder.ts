import type { IdleAction, IdleRuleConfig } from '../config/sections/idle.js';
import type { IdleEpisodeRecord } from '../db/idle-state.js';
import type { IdleVerdict } from '../rules/idle.js';
import { afterQuietHours } from '../rules/idle-match.js';

/**
 * Where an episode's ladder stands, derived from its timestamps and the rule (never stored):
 * notified at the start, warned when a stop is planned, stop due `warnLead` after the warning
 * (moved past quiet hours), decided once the stop was sent, dry-run, or given up.
 */
export type LadderPhase = 'notified' | 'warned' | 'stop_due' | 'decided';

/** How many failed stop requests an episode allows before it gives up and alerts. */
export const MAX_STOP_ATTEMPTS = 3;

export function ladderHas(rule: IdleRuleConfig, step: IdleAction): boolean {
  return rule.actions.includes(step);
}

/** A held-idle Pod is only reported, unless its rule allows stopping it. */
export function mayStop(rule: IdleRuleConfig, verdict: IdleVerdict): boolean {
  return ladderHas(rule, 'stop') && (verdict === 'idle' || (verdict === 'held_idle' && rule.heldIdle.stop));
}

export function mayWarn(rule: IdleRuleConfig, verdict: IdleVerdict): boolean {
  return ladderHas(rule, 'warn') && (verdict === 'idle' || (verdict === 'held_idle' && rule.heldIdle.stop));
}

/** When the stop comes: the lead time after the warning, moved past quiet hours. */
export function plannedStopAt(rule: IdleRuleConfig, episode: Pick<IdleEpisodeRecord, 'warnedAt'>): number | null {
  if (episode.warnedAt === null || !ladderHas(rule, 'stop')) return null;
  return afterQuietHours(rule, episode.warnedAt + rule.warnLeadMs);
}

export function ladderPhase(
  rule: IdleRuleConfig,
  episode: Pick<IdleEpisodeRecord, 'warnedAt' | 'decidedAt'>,
  now: number,
): LadderPhase {
  if (episode.decidedAt !== null) return 'decided';
  const stopAt = plannedStopAt(rule, episode);
  if (stopAt !== null && now >= stopAt) return 'stop_due';
  return episode.warnedAt === null ? 'notified' : 'warned';
}
