import { toIso } from '../clock.js';
import type { IdleRuleConfig } from '../config/sections/idle.js';
import { groupBy } from '../db/group-by.js';
import type { PodRecord } from '../db/pods.js';
import { gapLimitMs } from '../db/sample-horizon.js';
import type { SampleSeries } from '../db/sample-window.js';
import type { ReceiptEvidence } from '../db/tables/idle.js';
import { exclusionOf, ruleFor } from './idle-match.js';
import { seriesOf, WindowEvidence, type WindowSample } from './idle-samples.js';

/**
 * Idle detection, pure: stored samples, Pods, the idle rules and `now` in; one verdict per Pod
 * out. Only the window is read, so the cost does not grow with the stored history.
 *
 * - `idle` / `held_idle`: every sample of the window is IDLE, IDLE samples since the window's
 *   last telemetry gap cover `coverage` of it (at least `minSamples`), the newest is fresh, and
 *   the Pod is past its grace after (re)start.
 *   Held-idle: the GPUs hold memory (a model still loaded) while compute stays at the threshold.
 * - `active`: a sample above the threshold. `unknown`: too little known evidence, or none now.
 * - The others say why the Pod is not considered at all.
 */
export type IdleVerdict =
  | 'idle'
  | 'held_idle'
  | 'active'
  | 'unknown'
  | 'grace'
  | 'excluded'
  | 'snoozed'
  | 'not_running'
  | 'not_gpu'
  | 'cluster_member'
  | 'unmatched';

export interface PodAssessment {
  pod: PodRecord;
  rule: IdleRuleConfig | undefined;
  verdict: IdleVerdict;
  /** Why, in words: "known idle samples cover 63% of the window (need 90%)". */
  reason: string;
  evidence: WindowEvidence | undefined;
  /** When the Pod last (re)started, from startedAt and the newest sample's uptime. */
  runningSince: number | null;
}

export interface IdleInput {
  pods: readonly PodRecord[];
  /** Each Pod's samples from `idleSamplesFrom(...)` on, oldest first (newer ones are ignored). */
  series: ReadonlyMap<string, SampleSeries>;
  /**
   * Pods with a known sample above every rule's threshold within every rule's window: active
   * whichever rule matches, judged so without their samples (no evidence is built for them).
   */
  busy?: ReadonlySet<string>;
  rules: readonly IdleRuleConfig[];
  /** Snoozed Pods and until when. */
  snoozes: ReadonlyMap<string, number>;
  now: number;
  pollIntervalMs: number;
}

const NO_SAMPLES: SampleSeries = seriesOf('', []);

/** One verdict per Pod, judged afresh from the tick's input. */
export function assessPods(input: IdleInput): PodAssessment[] {
  return input.pods.map((pod) => assessPod(pod, input.series.get(pod.podId) ?? NO_SAMPLES, input));
}

const percent = (share: number) => `${Math.floor(share * 100)}%`;
const ACTIVE_REASON = (rule: IdleRuleConfig) => `GPU above ${rule.utilThreshold}% within the window`;

/** An assessment decided before any sample is read. */
export function withoutEvidence(
  pod: PodRecord,
  rule: IdleRuleConfig | undefined,
  verdict: IdleVerdict,
  reason: string,
): PodAssessment {
  return { pod, rule, verdict, reason, evidence: undefined, runningSince: null };
}

function assessPod(pod: PodRecord, series: SampleSeries, input: IdleInput): PodAssessment {
  const rule = ruleFor(pod, input.rules);
  if (pod.status !== 'RUNNING') return withoutEvidence(pod, rule, 'not_running', `status ${pod.status}`);
  if (!rule) return withoutEvidence(pod, rule, 'unmatched', 'no idle rule matches the Pod');
  if (!pod.gpuCount) return withoutEvidence(pod, rule, 'not_gpu', 'the Pod has no GPU');
  if (pod.clusterId) {
    return withoutEvidence(pod, rule, 'cluster_member', `member of cluster ${pod.clusterId}: reported, never stopped`);
  }
  const excluded = exclusionOf(pod, rule);
  if (excluded) return withoutEvidence(pod, rule, 'excluded', excluded);
  const snoozedUntil = input.snoozes.get(pod.podId);
  if (snoozedUntil !== undefined && snoozedUntil > input.now) {
    return withoutEvidence(pod, rule, 'snoozed', `snoozed until ${toIso(snoozedUntil)}`);
  }
  if (input.busy?.has(pod.podId)) return withoutEvidence(pod, rule, 'active', ACTIVE_REASON(rule));

  const evidence = new WindowEvidence(series, {
    from: input.now - rule.windowMs,
    to: input.now,
    gapLimitMs: gapLimitMs(input.pollIntervalMs),
    utilThreshold: rule.utilThreshold,
  });
  const runningSince = startOf(pod, evidence.latest);
  const [verdict, reason] = judge(rule, evidence, runningSince, input.now);
  return { pod, rule, verdict, reason, evidence, runningSince };
}

/** The verdict on a Pod's evidence, and why. */
function judge(
  rule: IdleRuleConfig,
  evidence: WindowEvidence,
  runningSince: number | null,
  now: number,
): [IdleVerdict, string] {
  if (evidence.activeMs > 0 || evidence.activeSamples > 0) return ['active', ACTIVE_REASON(rule)];
  if (evidence.unknownNow) return ['unknown', 'no fresh known sample: runtime missing or polls failing'];
  if (runningSince === null) return ['unknown', 'start time unknown'];
  if (now - runningSince < rule.graceMs) return ['grace', `(re)started ${toIso(runningSince)}, in grace`];
  if (evidence.coverage < rule.coverage || evidence.idleSamples < rule.minSamples) {
    const restarted =
      evidence.restartedAt === null ? '' : `telemetry gap: evidence restarted ${toIso(evidence.restartedAt)}; `;
    return [
      'unknown',
      `${restarted}known idle samples (${evidence.idleSamples}) cover ${percent(evidence.coverage)} of the window (need ${percent(rule.coverage)}, ${rule.minSamples} samples)`,
    ];
  }
  const memory = evidence.latest?.maxGpuMemoryUtil ?? null;
  // Memory use not reported: it may well hold a model, so the cautious reading is "held".
  if (memory === null || memory > rule.heldIdle.memoryThreshold) {
    const held = memory === null ? 'GPU memory use unknown' : `GPU memory ${memory}% in use`;
    return ['held_idle', `GPU at or below ${rule.utilThreshold}%, ${held}`];
  }
  return ['idle', `GPU at or below ${rule.utilThreshold}% for the whole window`];
}

/** The later of the API's startedAt and what the newest sample's uptime implies (a restart). */
function startOf(pod: PodRecord, latest: WindowSample | undefined): number | null {
  const fromUptime = latest?.uptimeS != null ? latest.observedAt - latest.uptimeS * 1000 : null;
  if (pod.startedAt === null) return fromUptime;
  return fromUptime === null ? pod.startedAt : Math.max(pod.startedAt, fromUptime);
}

export function isIdle(assessment: PodAssessment): boolean {
  return assessment.verdict === 'idle' || assessment.verdict === 'held_idle';
}

/** The receipt's copy of the evidence: the window's samples and every threshold applied. */
export function receiptEvidence(assessment: PodAssessment): ReceiptEvidence {
  const { rule, evidence } = assessment;
  return {
    windowFrom: evidence?.from ?? 0,
    windowTo: evidence?.to ?? 0,
    thresholds: {
      utilThreshold: rule?.utilThreshold ?? 0,
      coverage: rule?.coverage ?? 0,
      minSamples: rule?.minSamples ?? 0,
      windowMs: rule?.windowMs ?? 0,
      graceMs: rule?.graceMs ?? 0,
      memoryThreshold: rule?.heldIdle.memoryThreshold ?? 0,
    },
    coverage: evidence?.coverage ?? 0,
    idleSamples: evidence?.idleSamples ?? 0,
    held: assessment.verdict === 'held_idle',
    samples: evidence?.samples ?? [],
  };
}

export interface IdleCluster {
  clusterId: string;
  podIds: string[];
  costPerHr: number;
}

/**
 * Clusters whose running member Pods are all idle by the rule that covers them. Members are
 * judged on evidence alone (they are never laddered), so the verdict is computed here.
 */
export function idleClusters(input: IdleInput): IdleCluster[] {
  const running = input.pods.filter((pod) => pod.clusterId && pod.status === 'RUNNING');
  const members = groupBy(running, (pod) => pod.clusterId as string);
  const asStandalone = { ...input, pods: [...members.values()].flat().map((pod) => ({ ...pod, clusterId: null })) };
  const verdicts = new Map(assessPods(asStandalone).map((a) => [a.pod.podId, isIdle(a)]));
  return [...members.entries()]
    .filter(([, pods]) => pods.every((pod) => verdicts.get(pod.podId) === true))
    .map(([clusterId, pods]) => ({
      clusterId,
      podIds: pods.map((pod) => pod.podId),
      costPerHr: pods.reduce((sum, pod) => sum + pod.costPerHr, 0),
    }))
    .sort((a, b) => a.clusterId.localeCompare(b.clusterId));
}
