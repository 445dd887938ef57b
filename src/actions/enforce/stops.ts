import { HOUR_MS } from '../../buckets.js';
import { deliveriesOf } from '../../db/channel-outbox.js';
import { type EnforceEpisodeRecord, enforceStopsSince } from '../../db/enforce-state.js';
import type { GuardResult } from '../../db/tables/idle.js';
import type { ActionContext } from '../context.js';
import {
  blastRadiusGuard,
  deliveredAheadGuard,
  evaluationCapGuard,
  exclusionGuardOf,
  freshDataGuard,
  hourCapGuard,
  lockedGuard,
  type PodsFreshness,
  podRunningGuard,
  podStateNotRead,
  snoozeGuard,
} from '../guards.js';
import { savingPerHr } from '../saving.js';
import { stopPod } from '../stop-pod.js';
import type { StopCandidate } from './candidate.js';
import { enforceBlastRadiusFinding, enforceNotStoppedFinding, warnKey } from './findings.js';
import type { EnforceSteps } from './steps.js';

export interface DueEnforceStop {
  c: StopCandidate;
  episode: EnforceEpisodeRecord;
}

export interface EnforceStopContext {
  account: string;
  freshness: PodsFreshness;
  snoozes: ReadonlyMap<string, number>;
  running: number;
  steps: EnforceSteps;
}

/**
 * Decides every enforcement stop due this evaluation in the account, all controls together: each
 * Pod's guards (fresh data, exclusions, `locked`, snoozes, the warning delivered its lead time
 * ago), then the blast radius and the caps over the batch (largest saving first), then for what
 * passed a re-read of the Pod and the stop. Every verdict lands on the receipt.
 */
export async function decideEnforceStops(
  ctx: ActionContext,
  due: readonly DueEnforceStop[],
  sc: EnforceStopContext,
): Promise<void> {
  if (due.length === 0) return;
  const { now } = ctx;
  const { caps, stopWithoutDeliveredWarning } = ctx.config.enforce;
  const ordered = [...due].sort(
    (x, y) => savingPerHr(y.c.pod) - savingPerHr(x.c.pod) || x.c.pod.podId.localeCompare(y.c.pod.podId),
  );
  const delivered = stopWithoutDeliveredWarning
    ? new Map()
    : await deliveriesOf(
        ctx.db,
        new Map(ordered.map(({ c, episode }) => [warnKey(sc.account, c.pod.podId, c.kind), episode.warnedAt ?? now])),
      );
  const fresh = freshDataGuard(sc.freshness, now);
  const podGuards = ordered.map(({ c }) => [
    fresh,
    exclusionGuardOf(c.excluded),
    lockedGuard(c.pod),
    snoozeGuard(sc.snoozes.get(c.pod.podId), now),
    deliveredAheadGuard(
      delivered.get(warnKey(sc.account, c.pod.podId, c.kind)),
      now,
      stopWithoutDeliveredWarning ? 'enforce.stopWithoutDeliveredWarning: no delivered warning needed' : null,
      (sentAt) => sentAt + c.warnLeadMs,
    ),
  ]);
  const passing = podGuards.filter((guards) => guards.every((guard) => guard.passed)).length;
  const blast = blastRadiusGuard(passing, sc.running, caps.runningShare);
  const stopsInLastHour = await enforceStopsSince(ctx.db, sc.account, now - HOUR_MS);
  const api = ctx.apis.get(sc.account);
  let approved = 0;
  for (const [index, { c, episode }] of ordered.entries()) {
    if (ctx.signal.aborted) return;
    const guards: GuardResult[] = [
      ...(podGuards[index] ?? []),
      blast,
      hourCapGuard(stopsInLastHour + approved, caps.stopsPerHour),
      evaluationCapGuard(approved, caps.stopsPerEvaluation),
    ];
    if (guards.every((guard) => guard.passed)) {
      guards.push(c.dryRun ? podStateNotRead() : await podRunningGuard(api, c.pod.podId, ctx.signal));
    }
    const blockedBy = guards.find((guard) => !guard.passed);
    if (blockedBy) {
      await sc.steps.blocked(c, episode, guards, blockedBy);
      continue;
    }
    approved += 1;
    const outcome = await stopPod(api, c.pod.podId, { dryRun: c.dryRun, signal: ctx.signal });
    const after = await sc.steps.decided(c, episode, guards, outcome);
    // Later ticks report a failing stop from its episode (ladder.ts); the first failure, here.
    if (outcome.kind === 'failed' && episode.stopFailures === 0) {
      ctx.findings.push(
        enforceNotStoppedFinding(sc.account, c, after, now, `${after.stopFailures} attempt(s): ${outcome.error}`),
      );
    }
  }
  if (!blast.passed) {
    ctx.findings.push(
      enforceBlastRadiusFinding(
        sc.account,
        blast,
        ordered.map(({ c }) => c.pod.podId),
      ),
    );
  }
}
