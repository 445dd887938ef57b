import type { IdleRuleConfig } from '../config/sections/idle.js';
import type { PodRecord } from '../db/pods.js';
import type { SampleSeries } from '../db/sample-window.js';
import type { IdleInput, IdleVerdict, PodAssessment, PodJudge, VerdictMemo } from './idle.js';

interface Memoized {
  pod: PodRecord;
  series: SampleSeries;
  landed: number;
  rewritten: number;
  snoozedUntil: number | undefined;
  now: number;
  /** The verdict holds up to this time (inclusive) whatever samples are appended meanwhile. */
  appendSafeUntil: number;
  /** The verdict holds before this time as long as no sample lands at all. */
  quietSafeUntil: number;
  result: PodAssessment;
}

/**
 * What the idle rule concluded about each Pod last time, and from what. A verdict is a pure
 * function of the Pod's row, its samples, its snooze, the rules and `now`, so it is reused
 * (and the rule not run) only when it provably comes out the same:
 * - nothing changed: the same samples at the same time;
 * - verdicts decided before any sample, snooze or time is looked at (not running, unmatched,
 *   not a GPU Pod, cluster member, excluded), for as long as the Pod's row and the rules stay;
 * - `active`, while its newest busy sample stays in the window: samples appended after it
 *   cannot take it back (a busy sample in the window is enough), so a busy Pod is not judged
 *   again every minute;
 * - `snoozed`, until the snooze ends;
 * - `unknown` for lack of a fresh known sample, while no sample lands: time alone only makes
 *   the newest sample older.
 * Everything else (idle, held-idle, grace, too little evidence) depends on the time and is
 * judged on every tick, and so is every Pod the caller pins (those with an open idle episode:
 * their receipts and findings quote the evidence as of this tick).
 */
export class AssessmentMemo implements VerdictMemo {
  private entries = new Map<string, Memoized>();
  private rules: readonly IdleRuleConfig[] | undefined;
  private pollIntervalMs: number | undefined;
  private pinned: { has(podId: string): boolean } = new Set<string>();
  /** How many Pods were judged afresh, and how many verdicts were reused (for logs and tests). */
  judged = 0;
  reused = 0;

  /** Pods judged afresh whenever the time moved, even when their verdict would allow reuse. */
  pin(podIds: { has(podId: string): boolean }): void {
    this.pinned = podIds;
  }

  assess(pod: PodRecord, series: SampleSeries, input: IdleInput, judge: PodJudge): PodAssessment {
    if (input.rules !== this.rules || input.pollIntervalMs !== this.pollIntervalMs) {
      this.entries.clear();
      this.rules = input.rules;
      this.pollIntervalMs = input.pollIntervalMs;
    }
    const snoozedUntil = input.snoozes.get(pod.podId);
    const last = this.entries.get(pod.podId);
    if (last && sameJudgedFields(last.pod, pod) && this.holds(last, series, input, snoozedUntil)) {
      last.pod = pod;
      this.reused += 1;
      const { rule, verdict, reason, evidence, runningSince } = last.result;
      return { pod, rule, verdict, reason, evidence, runningSince };
    }
    this.judged += 1;
    const result = judge(pod, series, input);
    const safe = stability(result, series, input.now, snoozedUntil);
    this.entries.set(pod.podId, {
      pod,
      series,
      landed: series.landed,
      rewritten: series.rewritten,
      snoozedUntil,
      now: input.now,
      appendSafeUntil: safe.appendSafeUntil,
      quietSafeUntil: safe.quietSafeUntil,
      result,
    });
    return result;
  }

  /** Forgets Pods no longer listed. */
  keepOnly(podIds: ReadonlySet<string>): void {
    for (const podId of this.entries.keys()) if (!podIds.has(podId)) this.entries.delete(podId);
  }

  private holds(last: Memoized, series: SampleSeries, input: IdleInput, snoozedUntil: number | undefined): boolean {
    if (TIMELESS.has(last.result.verdict)) return true;
    if (last.snoozedUntil !== snoozedUntil) return false;
    if (last.landed === series.landed && last.now === input.now) return true;
    // A series read afresh, or samples replaced or dropped: what was concluded may not hold.
    if (last.series !== series || last.rewritten !== series.rewritten) return false;
    if (input.now < last.now || this.pinned.has(last.pod.podId)) return false;
    if (input.now <= last.appendSafeUntil) return true;
    return last.landed === series.landed && input.now < last.quietSafeUntil;
  }
}

/** Verdicts decided before any sample, snooze or time is looked at. */
const TIMELESS: ReadonlySet<IdleVerdict> = new Set([
  'not_running',
  'unmatched',
  'not_gpu',
  'cluster_member',
  'excluded',
]);

const NEVER = { appendSafeUntil: Number.NEGATIVE_INFINITY, quietSafeUntil: Number.NEGATIVE_INFINITY };

/** How long a verdict judged at `now` holds without judging again (see AssessmentMemo). */
function stability(
  result: PodAssessment,
  series: SampleSeries,
  now: number,
  snoozedUntil: number | undefined,
): Pick<Memoized, 'appendSafeUntil' | 'quietSafeUntil'> {
  const { rule, verdict } = result;
  const times = series.observedAt;
  if (verdict === 'snoozed' && snoozedUntil !== undefined) return { ...NEVER, appendSafeUntil: snoozedUntil - 1 };
  if (verdict === 'active' && rule) {
    // Active while a busy sample lies in the window: the newest one leaves it a window after it was observed.
    for (let i = times.length - 1; i >= series.start; i--) {
      const at = times[i] as number;
      const util = series.maxGpuUtil[i] as number;
      if (at > now || series.known[i] !== 1 || Number.isNaN(util) || util <= rule.utilThreshold) continue;
      return { ...NEVER, appendSafeUntil: at + rule.windowMs };
    }
    return NEVER;
  }
  if (verdict === 'unknown' && result.evidence?.unknownNow === true) {
    // No fresh known sample now, and none busy in the window: until a held sample newer than
    // now enters the window, a later time only makes the newest sample older.
    let next = Number.POSITIVE_INFINITY;
    for (let i = times.length - 1; i >= series.start && (times[i] as number) > now; i--) next = times[i] as number;
    return { ...NEVER, quietSafeUntil: next };
  }
  return NEVER;
}

/** The Pod fields a verdict depends on (and the reasons quote). */
function sameJudgedFields(a: PodRecord, b: PodRecord): boolean {
  return (
    a.podId === b.podId &&
    a.name === b.name &&
    a.status === b.status &&
    a.gpuCount === b.gpuCount &&
    a.clusterId === b.clusterId &&
    a.startedAt === b.startedAt &&
    sameEnv(a.env, b.env)
  );
}

function sameEnv(a: Record<string, string>, b: Record<string, string>): boolean {
  if (a === b) return true;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => a[key] === b[key]);
}
