import { type EnforceEpisodeRecord, openEnforceEpisodes } from '../../db/enforce-state.js';
import type { AccountSnapshot } from '../../db/snapshot.js';
import { freshDataGuard, freshnessOf, lockedGuard, snoozeGuard } from '../guards.js';
import type { EnforceContext, EnforceControl, StopCandidate } from './candidate.js';
import { ENFORCE_CONTROLS } from './controls.js';
import { enforceNotStoppedFinding, enforceWarnFinding } from './findings.js';
import { dueAt, EnforceSteps } from './steps.js';
import { type DueEnforceStop, decideEnforceStops } from './stops.js';

/**
 * The enforcement ladder, once per evaluation tick and account: every registered control names
 * its stop candidates; an episode opens per (Pod, kind, occurrence) when its warning is due (the
 * warning goes out then, unless the Pod is locked, excluded or snoozed, in which case it goes out
 * once nothing holds it), the stop is decided through the guards once due, and an episode whose
 * candidate is gone ends. With stale Pod data nothing opens or warns, and due stops are recorded
 * as held by fresh_data.
 */
export async function runEnforceLadder(ctx: EnforceContext, controls = ENFORCE_CONTROLS): Promise<void> {
  const enabled = controls.filter((control) => control.enabled(ctx.config));
  if (enabled.length === 0) return;
  for (const { name } of ctx.config.accounts) {
    if (ctx.signal.aborted) return;
    const snapshot = ctx.snapshots.get(name);
    if (snapshot) await evaluateAccount(ctx, snapshot, enabled);
  }
}

const episodeKey = (podId: string, kind: string, occurrence: number) => `${podId}\u0000${kind}\u0000${occurrence}`;

async function evaluateAccount(
  ctx: EnforceContext,
  snapshot: AccountSnapshot,
  controls: readonly EnforceControl[],
): Promise<void> {
  const { now } = ctx;
  const { account, pods, snoozes } = snapshot;
  const steps = new EnforceSteps(ctx, account);
  const open = new Map(
    (await openEnforceEpisodes(ctx.db, account)).map((e) => [episodeKey(e.podId, e.kind, e.occurrence), e]),
  );
  const outputs = controls.map((control) => control.candidates(ctx, account));
  for (const output of outputs) ctx.findings.push(...output.findings);
  const candidates = firstPerPodAndKind(outputs.flatMap((output) => output.candidates)).filter(
    (c) => c.pod.status === 'RUNNING',
  );
  const byKey = new Map(candidates.map((c) => [episodeKey(c.pod.podId, c.kind, c.occurrence), c]));
  const freshness = freshnessOf(snapshot.podsPolledAt, now, snapshot.pollIntervalMs);
  if (!freshness.fresh) {
    // Unknown is neither a reason to stop nor a reason to end an episode: nothing moves, and a
    // stop due meanwhile is recorded as held by fresh_data.
    ctx.unjudged.push({ labels: { rule: 'enforce', account }, reason: 'Pod data stale or not polled yet' });
    const guard = freshDataGuard(freshness, now);
    for (const [key, episode] of open) {
      const c = byKey.get(key);
      if (c && episode.decidedAt === null && now >= dueAt(c, episode)) await steps.blocked(c, episode, [guard], guard);
    }
    return;
  }
  const podById = new Map(pods.map((pod) => [pod.podId, pod]));
  // Ended first: a Pod's new occurrence opens only once the episode of its last one is closed.
  for (const [key, episode] of open) {
    if (byKey.has(key)) continue;
    const pod = podById.get(episode.podId);
    const [endReason, reason] = !pod
      ? ['gone', 'the Pod is no longer listed']
      : pod.status !== 'RUNNING'
        ? ['not_running', `the Pod is no longer running (${pod.status})`]
        : ['not_selected', `the ${episode.kind.replace('_', ' ')} ${episode.control} no longer covers this spell`];
    await steps.end(episode, reason, endReason, pod);
    open.delete(key);
  }

  const due: DueEnforceStop[] = [];
  for (const c of candidates) {
    let episode: EnforceEpisodeRecord | undefined = open.get(episodeKey(c.pod.podId, c.kind, c.occurrence));
    // Its warning is due the lead time before the stop (again after Keep running moved the stop).
    const warnDue = now >= (episode ? dueAt(c, episode) : c.stopAt) - c.warnLeadMs;
    if (!episode && !warnDue) continue;
    // A Pod that will not be stopped (locked, excluded) is not warned of a stop; a snoozed one is
    // warned once its snooze ends, and its stop waits the lead time after that warning.
    const warn = lockedGuard(c.pod).passed && c.excluded === null && snoozeGuard(snoozes.get(c.pod.podId), now).passed;
    if (!episode) episode = await steps.open(c, warn);
    else if (episode.warnedAt === null && warn && warnDue) episode = await steps.warn(c, episode);
    if (episode.warnedAt !== null) ctx.findings.push(enforceWarnFinding(account, c, episode, now));
    if (episode.stopFailures > 0) {
      ctx.findings.push(
        enforceNotStoppedFinding(account, c, episode, now, `${episode.stopFailures} attempt(s) failed`),
      );
    }
    if (episode.decidedAt === null && now >= dueAt(c, episode)) due.push({ c, episode });
  }
  const running = pods.filter((pod) => pod.status === 'RUNNING').length;
  await decideEnforceStops(ctx, due, { account, freshness, snoozes, running, steps });
}

/** One candidate per Pod and kind: the first control's (config order), as with idle rules. */
function firstPerPodAndKind(candidates: readonly StopCandidate[]): StopCandidate[] {
  const seen = new Set<string>();
  return candidates.filter((c) => {
    const key = `${c.pod.podId}\u0000${c.kind}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
