import type { IdleRuleConfig } from '../config/sections/idle.js';
import type { IdleEpisodeRecord } from '../db/idle-state.js';
import type { AccountSnapshot } from '../db/snapshot.js';
import { assessPods, type IdleInput, idleClusters, isIdle, withoutEvidence } from '../rules/idle.js';
import type { ActionContext } from './context.js';
import { freshDataGuard, freshnessOf, lockedGuard, type PodsFreshness } from './guards.js';
import { clusterFinding, frozenFinding, idleFinding, notStoppedFinding, warnFinding } from './idle-findings.js';
import { type DueStop, decideStops } from './idle-stops.js';
import { ladderPhase, mayStop, mayWarn } from './ladder.js';
import { type Judged, LadderSteps } from './ladder-steps.js';

/**
 * The idle ladder, once per evaluation tick and account: judge every Pod of the tick's snapshot
 * (rules/idle.ts), end the episodes of Pods no longer idle, open or advance the others (notify,
 * warn), decide the stops that are due through the guards, and append the findings. With stale
 * Pod data nothing moves: every stop is frozen and a health finding says why.
 */
export async function runIdleLadder(ctx: ActionContext): Promise<void> {
  if (ctx.config.idle.rules.length === 0) return;
  for (const { name } of ctx.config.accounts) {
    if (ctx.signal.aborted) return;
    const snapshot = ctx.snapshots.get(name);
    if (snapshot) await evaluateAccount(ctx, snapshot);
  }
}

async function evaluateAccount(ctx: ActionContext, snapshot: AccountSnapshot): Promise<void> {
  const { now, config } = ctx;
  const { account, pods, openEpisodes: episodes, pollIntervalMs } = snapshot;
  const rules = config.idle.rules;
  const freshness = freshnessOf(snapshot.podsPolledAt, now, pollIntervalMs);
  const steps = new LadderSteps(ctx, account);
  if (!freshness.fresh) {
    // Before the first Pod poll (a start) or with stale data, no idle alert of the account can be
    // judged: they keep their state until fresh data says otherwise.
    ctx.unjudged.push({ labels: { rule: 'idle', account }, reason: 'Pod data stale or not polled yet' });
    return freeze(ctx, snapshot, freshness, steps);
  }

  const input: IdleInput = {
    pods,
    series: snapshot.samples,
    busy: snapshot.busy,
    rules,
    snoozes: snapshot.snoozes,
    now,
    pollIntervalMs,
  };
  const assessments = assessPods(input);
  const byPod = new Map(assessments.map((a) => [a.pod.podId, a]));
  for (const a of assessments) {
    if (a.verdict === 'unknown') unjudge(ctx, account, a.pod.podId, a.reason);
  }
  const ended = new Set<string>();
  for (const [podId, episode] of episodes) {
    const a = byPod.get(podId);
    if (a && isIdle(a) && a.rule?.name === episode.rule) continue;
    if (!a) unjudge(ctx, account, podId, 'Pod missing from the latest poll');
    await steps.end(episode, a, ruleNamed(rules, episode.rule));
    ended.add(podId);
  }

  const due: DueStop[] = [];
  for (const a of assessments) {
    if (!isIdle(a) || !a.rule) continue;
    const judged = a as Judged;
    // A Pod locked in RunPod is never stopped, so it is not warned of a stop either: its notice
    // says why, and its receipt names the guard at once.
    const locked = lockedGuard(a.pod);
    const warn = mayWarn(judged.rule, a.verdict) && locked.passed;
    let episode = (ended.has(a.pod.podId) ? undefined : episodes.get(a.pod.podId)) ?? (await steps.open(judged, warn));
    if (episode.warnedAt === null && warn) episode = await steps.warn(judged, episode);
    appendPodFindings(ctx, account, judged, episode);
    if (!mayStop(judged.rule, a.verdict)) continue;
    if (!locked.passed) await steps.blocked(judged, episode, [locked], locked);
    else if (ladderPhase(judged.rule, episode, now) === 'stop_due') due.push({ a: judged, episode });
  }
  await decideStops(ctx, due, { account, freshness, snoozes: input.snoozes, pods, steps });
  for (const cluster of idleClusters(input)) ctx.findings.push(clusterFinding(account, cluster));
}

/** Unknown is not resolved: the Pod's idle alerts keep their state this tick. */
function unjudge(ctx: ActionContext, account: string, podId: string, reason: string): void {
  ctx.unjudged.push({ labels: { rule: 'idle', account, pod_id: podId }, reason });
}

function appendPodFindings(ctx: ActionContext, account: string, a: Judged, episode: IdleEpisodeRecord): void {
  ctx.findings.push(idleFinding(account, a, episode, ctx.now));
  if (episode.warnedAt !== null && mayWarn(a.rule, a.verdict) && a.pod.locked !== 1) {
    ctx.findings.push(warnFinding(account, a, episode, ctx.now));
  }
  if (episode.stopFailures > 0 && episode.decidedAt !== null) {
    ctx.findings.push(notStoppedFinding(account, a, 'stop-failed', `gave up after ${episode.stopFailures} attempts`));
  }
}

/**
 * Stale Pod data: no episode moves (unknown is not idle, and neither is it active), every due
 * stop is recorded as blocked by fresh_data, and a health finding fires once the collector has
 * succeeded at least once (before that there is nothing to freeze).
 */
async function freeze(
  ctx: ActionContext,
  { account, openEpisodes: episodes, pods }: AccountSnapshot,
  freshness: PodsFreshness,
  steps: LadderSteps,
): Promise<void> {
  if (freshness.lastSuccessAt !== null) ctx.findings.push(frozenFinding(account, freshness, ctx.now));
  const podById = new Map(pods.map((pod) => [pod.podId, pod]));
  const guard = freshDataGuard(freshness, ctx.now);
  for (const episode of episodes.values()) {
    const rule = ruleNamed(ctx.config.idle.rules, episode.rule);
    const pod = podById.get(episode.podId);
    if (!rule || !pod || ladderPhase(rule, episode, ctx.now) !== 'stop_due') continue;
    await steps.blocked({ ...withoutEvidence(pod, rule, 'unknown', guard.detail), rule }, episode, [guard], guard);
  }
}

function ruleNamed(rules: readonly IdleRuleConfig[], name: string): IdleRuleConfig | undefined {
  return rules.find((rule) => rule.name === name);
}
