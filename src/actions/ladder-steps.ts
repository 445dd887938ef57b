import type { IdleRuleConfig } from '../config/sections/idle.js';
import type { IdleEpisodeRecord } from '../db/idle-state.js';
import { type EpisodeWrite, writeLadderStep } from '../db/ladder-step.js';
import { type ReceiptInput, receiptRecorded } from '../db/receipts.js';
import type { GuardResult, ReceiptDecision } from '../db/tables/idle.js';
import { type PodAssessment, receiptEvidence } from '../rules/idle.js';
import type { ActionContext } from './context.js';
import { announceDecided } from './decided-event.js';
import { MAX_STOP_ATTEMPTS, plannedStopAt } from './ladder.js';
import { savingPerHr } from './saving.js';
import type { StopOutcome } from './stop-pod.js';

/** An assessment with the rule that judged it. */
export type Judged = PodAssessment & { rule: IdleRuleConfig };

/** Unique per Pod, episode and step (and guard or attempt, where a step repeats). */
const receiptKey = (...parts: Array<string | number | undefined>) =>
  parts.filter((part) => part !== undefined).join(':');

type EpisodeChange = Extract<EpisodeWrite, { kind: 'update' }>['change'];

/**
 * Every move of an episode's ladder, each written with its receipt in one transaction (STYLE
 * rule 10). Receipt keys are unique per Pod, episode and step, so a tick re-run after a crash
 * writes nothing twice; `action:decided` is emitted only for receipts actually written.
 */
export class LadderSteps {
  constructor(
    private readonly ctx: ActionContext,
    private readonly account: string,
  ) {}

  /** Opens an episode: notify, and warn too when a stop is planned. */
  async open(a: Judged, warn: boolean): Promise<IdleEpisodeRecord> {
    const now = this.ctx.now;
    const episode: IdleEpisodeRecord = {
      account: this.account,
      podId: a.pod.podId,
      startedAt: now,
      rule: a.rule.name,
      notifiedAt: now,
      warnedAt: warn ? now : null,
      decidedAt: null,
      stopFailures: 0,
      endedAt: null,
      endReason: null,
    };
    const receipts = [this.receipt(a, episode, 'notified')];
    if (warn) receipts.push(this.receipt(a, episode, 'warned', { plannedStopAt: plannedStopAt(a.rule, episode) }));
    await this.commit(receipts, { kind: 'open', episode });
    return episode;
  }

  async warn(a: Judged, episode: IdleEpisodeRecord): Promise<IdleEpisodeRecord> {
    const warned = { ...episode, warnedAt: this.ctx.now };
    const receipt = this.receipt(a, warned, 'warned', { plannedStopAt: plannedStopAt(a.rule, warned) });
    await this.commit([receipt], { kind: 'update', key: episode, change: { warnedAt: warned.warnedAt } });
    return warned;
  }

  /** Ends an episode; a warning already given is answered by a `cancelled` receipt. */
  async end(episode: IdleEpisodeRecord, a: PodAssessment | undefined, rule: IdleRuleConfig | undefined): Promise<void> {
    const reason = a ? `${a.verdict}: ${a.reason}` : 'gone: the Pod is no longer listed';
    const change: EpisodeChange = { endedAt: this.ctx.now, endReason: a?.verdict ?? 'gone' };
    const cancel = episode.warnedAt !== null && episode.decidedAt === null && a !== undefined && rule !== undefined;
    const receipts = cancel ? [this.receipt({ ...a, rule }, episode, 'cancelled', { reason })] : [];
    await this.commit(receipts, { kind: 'update', key: episode, change });
  }

  /**
   * A guard blocked the stop: recorded once per episode and guard (the receipt key is unique).
   * A due stop a guard holds is offered every tick: a receipt already recorded is not built again.
   */
  async blocked(a: Judged, episode: IdleEpisodeRecord, guards: GuardResult[], by: GuardResult): Promise<void> {
    if (
      await receiptRecorded(this.ctx.db, receiptKey(this.account, a.pod.podId, episode.startedAt, 'blocked', by.guard))
    )
      return;
    const receipt = this.receipt(a, episode, 'blocked', {
      // Every guard that failed, not only the one the receipt is keyed by.
      reason: guards
        .filter((guard) => !guard.passed)
        .map((guard) => `${guard.guard}: ${guard.detail}`)
        .join('; '),
      guards,
      keySuffix: by.guard,
      plannedStopAt: plannedStopAt(a.rule, episode),
    });
    await this.commit([receipt], { kind: 'none' });
  }

  /** The stop was sent (or dry-run, or failed): the outcome and the episode move together. */
  async decided(
    a: Judged,
    episode: IdleEpisodeRecord,
    guards: GuardResult[],
    outcome: StopOutcome,
  ): Promise<IdleEpisodeRecord> {
    const now = this.ctx.now;
    let change: EpisodeChange = { decidedAt: now };
    let receipt: ReceiptInput;
    if (outcome.kind === 'failed') {
      const attempt = episode.stopFailures + 1;
      change = { stopFailures: attempt, ...(attempt >= MAX_STOP_ATTEMPTS ? { decidedAt: now } : {}) };
      receipt = this.receipt(a, episode, 'failed', { reason: outcome.error, guards, keySuffix: `attempt-${attempt}` });
    } else {
      receipt = this.receipt(a, episode, outcome.kind, { guards, plannedStopAt: plannedStopAt(a.rule, episode) });
    }
    await this.commit([receipt], { kind: 'update', key: episode, change });
    return { ...episode, ...change };
  }

  private receipt(
    a: Judged,
    episode: Pick<IdleEpisodeRecord, 'startedAt'>,
    decision: ReceiptDecision,
    extra: { reason?: string; guards?: GuardResult[]; keySuffix?: string; plannedStopAt?: number | null } = {},
  ): ReceiptInput {
    return {
      idempotencyKey: receiptKey(this.account, a.pod.podId, episode.startedAt, decision, extra.keySuffix),
      account: this.account,
      podId: a.pod.podId,
      podName: a.pod.name,
      rule: a.rule.name,
      kind: 'idle',
      episodeStartedAt: episode.startedAt,
      decidedAt: this.ctx.now,
      decision,
      reason: extra.reason ?? null,
      dryRun: a.rule.dryRun,
      plannedStopAt: extra.plannedStopAt ?? null,
      costPerHr: a.pod.costPerHr,
      savingPerHr: savingPerHr(a.pod),
      evidence: receiptEvidence(a),
      guards: extra.guards ?? [],
    };
  }

  private async commit(receipts: ReceiptInput[], change: EpisodeWrite): Promise<void> {
    const written = await writeLadderStep(this.ctx.db, change, receipts);
    announceDecided(this.ctx.events, written);
  }
}
