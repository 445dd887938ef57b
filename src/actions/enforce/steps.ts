import { toIso } from '../../clock.js';
import {
  type EnforceEpisodeChange,
  type EnforceEpisodeRecord,
  type EnforceEpisodeWrite,
  writeEnforceStep,
} from '../../db/enforce-state.js';
import type { PodRecord } from '../../db/pods.js';
import { type ReceiptInput, receiptRecorded } from '../../db/receipts.js';
import type { EnforceEvidence } from '../../db/tables/enforce.js';
import type { GuardResult, ReceiptDecision } from '../../db/tables/idle.js';
import { formatDuration } from '../../duration.js';
import type { ActionContext } from '../context.js';
import { announceDecided } from '../decided-event.js';
import { MAX_STOP_ATTEMPTS } from '../ladder.js';
import { savingPerHr } from '../saving.js';
import type { StopOutcome } from '../stop-pod.js';
import type { StopCandidate } from './candidate.js';

/** When the episode's stop is due: the candidate's time plus what Keep running added. */
export const dueAt = (c: StopCandidate, episode: Pick<EnforceEpisodeRecord, 'extendedMs'>) =>
  c.stopAt + episode.extendedMs;

/**
 * The receipt key: unique per account, Pod, kind, occurrence and step (and guard, attempt or
 * extension where a step repeats), and never one of the idle ladder's (which has no kind in it).
 */
export const enforceReceiptKey = (
  key: Pick<EnforceEpisodeRecord, 'account' | 'podId' | 'kind' | 'occurrence'>,
  decision: ReceiptDecision,
  suffix?: string,
) => [key.account, key.podId, key.kind, key.occurrence, decision, suffix].filter((p) => p !== undefined).join(':');

/**
 * Every move of an enforcement episode, each written with its receipt in one transaction.
 * Receipt keys are unique per episode and step, so a tick re-run after a crash writes nothing
 * twice; `action:decided` is emitted only for receipts actually written.
 */
export class EnforceSteps {
  constructor(
    private readonly ctx: ActionContext,
    private readonly account: string,
  ) {}

  /** Opens the episode when its warning is due; warns at once unless something (locked, excluded, snoozed) holds it. */
  async open(c: StopCandidate, warn: boolean): Promise<EnforceEpisodeRecord> {
    const now = this.ctx.now;
    const episode: EnforceEpisodeRecord = {
      account: this.account,
      podId: c.pod.podId,
      kind: c.kind,
      occurrence: c.occurrence,
      control: c.control,
      openedAt: now,
      dryRun: c.dryRun,
      extendedMs: 0,
      warnedAt: warn ? now : null,
      decidedAt: null,
      stopFailures: 0,
      endedAt: null,
      endReason: null,
    };
    const receipts = warn ? [this.receipt(c, episode, 'warned', { keySuffix: warnSuffix(episode) })] : [];
    await this.commit(receipts, { kind: 'open', episode });
    return episode;
  }

  async warn(c: StopCandidate, episode: EnforceEpisodeRecord): Promise<EnforceEpisodeRecord> {
    const warned = { ...episode, warnedAt: this.ctx.now };
    const receipt = this.receipt(c, warned, 'warned', { keySuffix: warnSuffix(warned) });
    await this.commit([receipt], { kind: 'update', key: episode, change: { warnedAt: warned.warnedAt } });
    return warned;
  }

  /** Ends an episode whose candidate is gone; a warning not followed by a stop is answered by `cancelled`. */
  async end(episode: EnforceEpisodeRecord, reason: string, endReason: string, pod: StopCandidate['pod'] | undefined) {
    const change: EnforceEpisodeChange = { endedAt: this.ctx.now, endReason };
    const cancel = episode.warnedAt !== null && episode.decidedAt === null && pod !== undefined;
    const receipts = cancel ? [this.endReceipt(episode, pod, reason)] : [];
    await this.commit(receipts, { kind: 'update', key: episode, change });
  }

  /** A guard held the stop: recorded once per episode and guard; the stop is offered again every tick. */
  async blocked(c: StopCandidate, episode: EnforceEpisodeRecord, guards: GuardResult[], by: GuardResult) {
    const suffix = `${by.guard}${extensionSuffix(episode)}`;
    if (await receiptRecorded(this.ctx.db, enforceReceiptKey(episode, 'blocked', suffix))) return;
    const receipt = this.receipt(c, episode, 'blocked', {
      reason: guards
        .filter((guard) => !guard.passed)
        .map((guard) => `${guard.guard}: ${guard.detail}`)
        .join('; '),
      guards,
      keySuffix: suffix,
    });
    await this.commit([receipt], { kind: 'none' });
  }

  /** The stop was sent (or dry-run, or failed): the outcome and the episode move together. */
  async decided(
    c: StopCandidate,
    episode: EnforceEpisodeRecord,
    guards: GuardResult[],
    outcome: StopOutcome,
  ): Promise<EnforceEpisodeRecord> {
    const now = this.ctx.now;
    let change: EnforceEpisodeChange = { decidedAt: now };
    let receipt: ReceiptInput;
    if (outcome.kind === 'failed') {
      const attempt = episode.stopFailures + 1;
      change = { stopFailures: attempt, ...(attempt >= MAX_STOP_ATTEMPTS ? { decidedAt: now } : {}) };
      receipt = this.receipt(c, episode, 'failed', { reason: outcome.error, guards, keySuffix: `attempt-${attempt}` });
    } else {
      receipt = this.receipt(c, episode, outcome.kind, { guards });
    }
    await this.commit([receipt], { kind: 'update', key: episode, change });
    return { ...episode, ...change };
  }

  private receipt(
    c: StopCandidate,
    episode: EnforceEpisodeRecord,
    decision: ReceiptDecision,
    extra: { reason?: string; guards?: GuardResult[]; keySuffix?: string } = {},
  ): ReceiptInput {
    return {
      idempotencyKey: enforceReceiptKey(episode, decision, extra.keySuffix),
      account: this.account,
      podId: c.pod.podId,
      podName: c.pod.name,
      rule: c.control,
      kind: c.kind,
      episodeStartedAt: episode.occurrence,
      decidedAt: this.ctx.now,
      decision,
      reason: extra.reason ?? c.why,
      dryRun: c.dryRun,
      plannedStopAt: dueAt(c, episode),
      costPerHr: c.pod.costPerHr,
      savingPerHr: savingPerHr(c.pod),
      evidence: evidenceOf(c, episode),
      guards: extra.guards ?? [],
    };
  }

  /** The receipt of an episode ended without its candidate (the control no longer names the Pod). */
  private endReceipt(episode: EnforceEpisodeRecord, pod: StopCandidate['pod'], reason: string): ReceiptInput {
    return {
      idempotencyKey: enforceReceiptKey(episode, 'cancelled'),
      account: this.account,
      podId: pod.podId,
      podName: pod.name,
      rule: episode.control,
      kind: episode.kind,
      episodeStartedAt: episode.occurrence,
      decidedAt: this.ctx.now,
      decision: 'cancelled',
      reason,
      dryRun: episode.dryRun,
      plannedStopAt: null,
      costPerHr: pod.costPerHr,
      savingPerHr: savingPerHr(pod),
      evidence: {
        kind: episode.kind,
        control: episode.control,
        why: reason,
        occurrence: episode.occurrence,
        stopAt: null,
        extendedMs: episode.extendedMs,
        warnLeadMs: null,
      },
      guards: [],
    };
  }

  private async commit(receipts: ReceiptInput[], change: EnforceEpisodeWrite): Promise<void> {
    const written = await writeEnforceStep(this.ctx.db, change, receipts);
    announceDecided(this.ctx.events, written);
  }
}

/** A Keep running extension starts the steps over: their receipts are new ones. */
const extensionSuffix = (episode: Pick<EnforceEpisodeRecord, 'extendedMs'>) =>
  episode.extendedMs === 0 ? '' : `:ext-${episode.extendedMs}`;
const warnSuffix = (episode: Pick<EnforceEpisodeRecord, 'extendedMs'>) =>
  episode.extendedMs === 0 ? undefined : `ext-${episode.extendedMs}`;

export function evidenceOf(c: StopCandidate, episode: EnforceEpisodeRecord): EnforceEvidence {
  return {
    kind: c.kind,
    control: c.control,
    why: c.why,
    occurrence: c.occurrence,
    stopAt: c.stopAt,
    extendedMs: episode.extendedMs,
    warnLeadMs: c.warnLeadMs,
  };
}

/**
 * The receipt of a Keep running link that moved an episode's stop `byMs` later, to `stopAt`: keyed
 * by the extension it makes, so one link acts once and each further extension has its own.
 */
export function extensionReceipt(input: {
  episode: EnforceEpisodeRecord;
  pod: Pick<PodRecord, 'podId' | 'name' | 'costPerHr' | 'volumeGb'>;
  byMs: number;
  stopAt: number;
  by: string;
  now: number;
}): ReceiptInput {
  const { episode, pod, byMs, stopAt } = input;
  const extendedMs = episode.extendedMs + byMs;
  return {
    idempotencyKey: enforceReceiptKey(episode, 'extended', `ext-${extendedMs}`),
    account: episode.account,
    podId: pod.podId,
    podName: pod.name,
    rule: episode.control,
    kind: episode.kind,
    episodeStartedAt: episode.occurrence,
    decidedAt: input.now,
    decision: 'extended',
    reason: `Keep running link of ${input.by}: ${formatDuration(byMs)} later, to ${toIso(stopAt)}`,
    dryRun: episode.dryRun,
    plannedStopAt: stopAt,
    costPerHr: pod.costPerHr,
    savingPerHr: savingPerHr(pod),
    evidence: {
      kind: episode.kind,
      control: episode.control,
      why: `moved ${formatDuration(byMs)} later by a Keep running link`,
      occurrence: episode.occurrence,
      stopAt: null,
      extendedMs,
      warnLeadMs: null,
    },
    guards: [],
  };
}
