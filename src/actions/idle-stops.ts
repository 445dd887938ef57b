import { HOUR_MS } from '../buckets.js';
import { latestGpuAvailability } from '../db/catalog.js';
import { type Delivery, deliveriesOf } from '../db/channel-outbox.js';
import { groupBy } from '../db/group-by.js';
import type { IdleEpisodeRecord } from '../db/idle-state.js';
import type { PodRecord } from '../db/pods.js';
import { stopsSince } from '../db/receipts.js';
import type { GuardResult } from '../db/tables/idle.js';
import type { ActionContext } from './context.js';
import {
  blastRadiusGuard,
  evaluationCapGuard,
  exclusionGuard,
  freshDataGuard,
  hourCapGuard,
  lockedGuard,
  type PodsFreshness,
  podStateGuard,
  podStateNotRead,
  quietHoursGuard,
  scarcityGuard,
  snoozeGuard,
  warningDeliveredGuard,
} from './guards.js';
import { blastRadiusFinding, notStoppedFinding } from './idle-findings.js';
import type { Judged, LadderSteps } from './ladder-steps.js';
import { savingPerHr } from './saving.js';
import { stopPod } from './stop-pod.js';

export interface DueStop {
  a: Judged;
  episode: IdleEpisodeRecord;
}

export interface StopContext {
  account: string;
  freshness: PodsFreshness;
  snoozes: ReadonlyMap<string, number>;
  pods: readonly PodRecord[];
  steps: LadderSteps;
}

/**
 * Decides every stop due this evaluation, per idle rule: the guards of each Pod, then the caps
 * and the blast radius over the rule's batch (largest saving first), then, for what passed, a
 * re-read of the Pod and the stop itself. Every verdict lands on the receipt.
 */
export async function decideStops(ctx: ActionContext, due: readonly DueStop[], sc: StopContext): Promise<void> {
  // Most ticks have no stop due: then nothing below (the availability figures above all) is read.
  if (due.length === 0) return;
  const byRule = groupBy(due, (stop) => stop.a.rule.name);
  const running = sc.pods.filter((pod) => pod.status === 'RUNNING').length;
  const availability = await availabilityLookup(ctx, sc.account);
  for (const batch of byRule.values()) {
    if (ctx.signal.aborted) return;
    await decideBatch(ctx, sc, batch, running, availability);
  }
}

async function decideBatch(
  ctx: ActionContext,
  sc: StopContext,
  batch: DueStop[],
  running: number,
  availability: (pod: PodRecord) => string | null,
): Promise<void> {
  const { now } = ctx;
  const rule = (batch[0] as DueStop).a.rule;
  const saving = new Map(batch.map((stop) => [stop, savingPerHr(stop.a.pod)]));
  const savingOf = (stop: DueStop) => saving.get(stop) as number;
  const ordered = [...batch].sort((x, y) => savingOf(y) - savingOf(x) || x.a.pod.podId.localeCompare(y.a.pod.podId));
  // A rule that stops without a delivered warning never looks at deliveries.
  const delivered = rule.stopWithoutDeliveredWarning
    ? new Map<string, Delivery>()
    : await warningDeliveries(ctx, sc.account, ordered);
  // The same for every Pod of the batch: worded once (a due stop a guard holds is offered every tick).
  const fresh = freshDataGuard(sc.freshness, now);
  const quiet = quietHoursGuard(rule, now);
  const podGuards = ordered.map(({ a }) => [
    fresh,
    exclusionGuard(a.pod, rule),
    lockedGuard(a.pod),
    snoozeGuard(sc.snoozes.get(a.pod.podId), now),
    quiet,
    scarcityGuard(rule, a.pod.gpuTypeId, availability(a.pod)),
    warningDeliveredGuard(rule, delivered.get(a.pod.podId), now),
  ]);
  const passing = podGuards.filter((guards) => guards.every((guard) => guard.passed)).length;
  const blast = blastRadiusGuard(passing, running, rule.caps.runningShare);
  const stopsInLastHour = await stopsSince(ctx.db, sc.account, rule.name, now - HOUR_MS);
  const api = ctx.apis.get(sc.account);
  let approved = 0;
  for (const [index, { a, episode }] of ordered.entries()) {
    const guards: GuardResult[] = [
      ...(podGuards[index] ?? []),
      blast,
      hourCapGuard(stopsInLastHour + approved, rule.caps.stopsPerHour),
      evaluationCapGuard(approved, rule.caps.stopsPerEvaluation),
    ];
    if (guards.every((guard) => guard.passed)) {
      guards.push(rule.dryRun ? podStateNotRead() : await podStateGuard(api, a.pod.podId, rule, ctx.signal));
    }
    const blockedBy = guards.find((guard) => !guard.passed);
    if (blockedBy) {
      await sc.steps.blocked(a, episode, guards, blockedBy);
      if (blockedBy.guard === 'scarcity')
        ctx.findings.push(notStoppedFinding(sc.account, a, 'scarce', blockedBy.detail));
      continue;
    }
    approved += 1;
    const outcome = await stopPod(api, a.pod.podId, { dryRun: rule.dryRun, signal: ctx.signal });
    const after = await sc.steps.decided(a, episode, guards, outcome);
    if (outcome.kind === 'failed') {
      ctx.findings.push(
        notStoppedFinding(sc.account, a, 'stop-failed', `${after.stopFailures} attempt(s): ${outcome.error}`),
      );
    }
  }
  const podIds = ordered.map(({ a }) => a.pod.podId);
  if (!blast.passed) ctx.findings.push(blastRadiusFinding(sc.account, rule, blast, podIds));
}

const SCARCITY_PRODUCT = 'POD';

/** The Pod's GPU availability where it runs (its data center), else the global figure; null when unknown. */
async function availabilityLookup(ctx: ActionContext, account: string): Promise<(pod: PodRecord) => string | null> {
  const figures = new Map<string, string | null>();
  for (const row of await latestGpuAvailability(ctx.db, account)) {
    if (row.product === SCARCITY_PRODUCT) figures.set(`${row.gpuTypeId}\u0000${row.dataCenterId}`, row.availability);
  }
  return (pod) => {
    if (!pod.gpuTypeId) return null;
    const local = pod.dataCenterId ? figures.get(`${pod.gpuTypeId}\u0000${pod.dataCenterId}`) : undefined;
    return local ?? figures.get(`${pod.gpuTypeId}\u0000`) ?? null;
  };
}

/**
 * The stop warning of each Pod as delivered for its episode, by whichever channels carry it: the
 * outbox rows announcing its warn alert written since the episode warned. The warn alert is one per idle spell (a new spell opens a new
 * one in the tick it warns, before any message is planned), so a mail about an earlier spell,
 * even one whose alert stayed open through an unknown stretch, never counts for this one. Read for
 * the whole batch at once: every due Pod asks on every tick until it stops.
 */
async function warningDeliveries(
  ctx: ActionContext,
  account: string,
  batch: readonly DueStop[],
): Promise<Map<string, Delivery | undefined>> {
  const keyOf = (podId: string) => `idle:${account}:${podId}:warn`;
  const since = new Map(batch.map(({ a, episode }) => [keyOf(a.pod.podId), episode.warnedAt ?? ctx.now]));
  const deliveries = await deliveriesOf(ctx.db, since);
  return new Map(batch.map(({ a }) => [a.pod.podId, deliveries.get(keyOf(a.pod.podId))]));
}
