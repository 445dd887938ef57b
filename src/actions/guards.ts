import type { ApiClient } from '../api/index.js';
import { toIso } from '../clock.js';
import type { IdleRuleConfig } from '../config/sections/idle.js';
import type { Delivery } from '../db/channel-outbox.js';
import type { PodRecord } from '../db/pods.js';
import type { GuardResult } from '../db/tables/idle.js';
import { formatDuration } from '../duration.js';
import { afterQuietHours, exclusionOf, quietUntil } from '../rules/idle-match.js';

/**
 * The guards a stop must pass, each a small function returning its verdict with a reason. Every
 * verdict is recorded on the stop's receipt, passed or not; one failure blocks the stop.
 */

const pass = (guard: string, detail: string): GuardResult => ({ guard, passed: true, detail });
const fail = (guard: string, detail: string): GuardResult => ({ guard, passed: false, detail });

export interface PodsFreshness {
  fresh: boolean;
  lastSuccessAt: number | null;
  limitMs: number;
}

/** The Pod collector's data is fresh when it succeeded within two of its intervals (the last success as read). */
export function freshnessOf(lastSuccessAt: number | null, now: number, pollIntervalMs: number): PodsFreshness {
  const limitMs = 2 * pollIntervalMs;
  return { fresh: lastSuccessAt !== null && now - lastSuccessAt <= limitMs, lastSuccessAt, limitMs };
}

export function freshDataGuard(freshness: PodsFreshness, now: number): GuardResult {
  const limit = formatDuration(freshness.limitMs);
  if (freshness.lastSuccessAt === null) return fail('fresh_data', 'the Pod collector has never succeeded');
  const age = formatDuration(Math.max(0, now - freshness.lastSuccessAt));
  return freshness.fresh
    ? pass('fresh_data', `Pod collector succeeded ${age} ago (limit ${limit})`)
    : fail('fresh_data', `Pod collector last succeeded ${age} ago (limit ${limit}): every stop is frozen`);
}

export function exclusionGuard(pod: PodRecord, rule: IdleRuleConfig): GuardResult {
  return exclusionGuardOf(exclusionOf(pod, rule) ?? null);
}

/** The exclusion verdict from why the Pod is excluded (null: it is not). */
export function exclusionGuardOf(excluded: string | null): GuardResult {
  return excluded ? fail('exclusion', excluded) : pass('exclusion', 'not excluded');
}

/** RunPod's own lock: the owner locked the Pod against stopping, and no rule overrides that. */
export function lockedGuard(pod: Pick<PodRecord, 'locked'>): GuardResult {
  return pod.locked === 1
    ? fail('locked', 'the Pod is locked in RunPod: its owner locked it against stopping')
    : pass('locked', 'not locked in RunPod');
}

export function snoozeGuard(snoozedUntil: number | undefined, now: number): GuardResult {
  return snoozedUntil !== undefined && snoozedUntil > now
    ? fail('snooze', `snoozed until ${toIso(snoozedUntil)}`)
    : pass('snooze', 'not snoozed');
}

export function quietHoursGuard(rule: IdleRuleConfig, now: number): GuardResult {
  const until = quietUntil(rule, now);
  return until === undefined
    ? pass('quiet_hours', 'outside quiet hours')
    : fail('quiet_hours', `quiet hours until ${toIso(until)}`);
}

const SCARCE = new Set(['NONE', 'LOW']);

/** A stop of a GPU type at availability NONE or LOW (or unknown) becomes an alert, unless the rule allows it. */
export function scarcityGuard(
  rule: IdleRuleConfig,
  gpuTypeId: string | null,
  availability: string | null,
): GuardResult {
  const what = `${gpuTypeId ?? 'GPU type unknown'} at availability ${availability ?? 'unknown'}`;
  if (availability !== null && !SCARCE.has(availability.toUpperCase())) return pass('scarcity', what);
  return rule.stopWhenScarce
    ? pass('scarcity', `${what}; the rule stops anyway (stopWhenScarce)`)
    : fail('scarcity', `${what}: it may not come back once stopped`);
}

/** If one evaluation would stop more than the set share of the running Pods (and more than one), it stops none. */
export function blastRadiusGuard(stopping: number, running: number, share: number): GuardResult {
  const limit = Math.max(1, Math.floor(share * running));
  const what = `${stopping} stop(s) of ${running} running Pod(s), limit ${limit} (${Math.round(share * 100)}%)`;
  return stopping <= limit ? pass('blast_radius', what) : fail('blast_radius', `${what}: none is stopped`);
}

export function hourCapGuard(stopsInLastHour: number, cap: number): GuardResult {
  const what = `${stopsInLastHour} stop(s) in the last hour, cap ${cap}`;
  return stopsInLastHour < cap ? pass('cap_per_hour', what) : fail('cap_per_hour', what);
}

export function evaluationCapGuard(approvedThisEvaluation: number, cap: number): GuardResult {
  const what = `${approvedThisEvaluation} stop(s) this evaluation, cap ${cap}`;
  return approvedThisEvaluation < cap ? pass('cap_per_evaluation', what) : fail('cap_per_evaluation', what);
}

/**
 * Re-reads the Pod just before acting: it must still be RUNNING and offer `stop`. Returns the
 * live Pod, or the failed verdict.
 */
async function rereadStoppable(
  api: ApiClient | undefined,
  podId: string,
  signal: AbortSignal | undefined,
): Promise<{ pod: Awaited<ReturnType<ApiClient['rest']['getPod']>> } | { failed: GuardResult }> {
  if (!api) return { failed: fail('pod_state', 'no API client for the account') };
  let pod: Awaited<ReturnType<ApiClient['rest']['getPod']>>;
  try {
    pod = await api.rest.getPod(podId, { signal });
  } catch (error) {
    return { failed: fail('pod_state', `re-read failed: ${error instanceof Error ? error.message : String(error)}`) };
  }
  if (pod.status !== 'RUNNING') return { failed: fail('pod_state', `now ${pod.status}`) };
  if (!pod.actions.includes('stop'))
    return { failed: fail('pod_state', `stop not offered (actions: ${pod.actions.join(', ')})`) };
  return { pod };
}

/**
 * The idle stop's re-read: still RUNNING, `stop` offered, and its live runtime shows every GPU at
 * or below the threshold (no runtime is unknown, not idle).
 */
export async function podStateGuard(
  api: ApiClient | undefined,
  podId: string,
  rule: IdleRuleConfig,
  signal?: AbortSignal,
): Promise<GuardResult> {
  const read = await rereadStoppable(api, podId, signal);
  if ('failed' in read) return read.failed;
  const utils = read.pod.runtime?.gpus?.map((gpu) => gpu.util) ?? null;
  if (utils === null || utils.length === 0 || utils.some((util) => util === null)) {
    return fail('pod_state', 'live GPU utilization unknown');
  }
  const busiest = Math.max(...(utils as number[]));
  return busiest <= rule.utilThreshold
    ? pass('pod_state', `RUNNING, stop offered, live GPU ${busiest}%`)
    : fail('pod_state', `live GPU ${busiest}% is above ${rule.utilThreshold}%`);
}

/** An enforcement stop's re-read: still RUNNING and `stop` offered (a deadline holds however busy the GPU is). */
export async function podRunningGuard(
  api: ApiClient | undefined,
  podId: string,
  signal?: AbortSignal,
): Promise<GuardResult> {
  const read = await rereadStoppable(api, podId, signal);
  return 'failed' in read ? read.failed : pass('pod_state', 'RUNNING, stop offered');
}

/** Dry run sends no request at all, so the Pod is not re-read. */
export function podStateNotRead(): GuardResult {
  return pass('pod_state', 'not re-read: dry run sends no request');
}

/**
 * The warning comes before the stop: the lead time counts from when a channel first took the warning
 * (the SMTP server accepted it), not from when it was decided. An undelivered warning (SMTP down, no email host, no
 * recipients) holds the stop, unless the rule allows stops without a delivered warning.
 */
export function warningDeliveredGuard(rule: IdleRuleConfig, delivery: Delivery | undefined, now: number): GuardResult {
  return deliveredAheadGuard(
    delivery,
    now,
    rule.stopWithoutDeliveredWarning ? 'the rule stops without a delivered warning' : null,
    (sentAt) => afterQuietHours(rule, sentAt + rule.warnLeadMs),
  );
}

/**
 * The warning-first rule of every stop: passes once the warning was delivered and `stopAfter` of
 * its delivery time has come; `skip` (why no delivery is needed) passes it at once.
 */
export function deliveredAheadGuard(
  delivery: Delivery | undefined,
  now: number,
  skip: string | null,
  stopAfter: (sentAt: number) => number,
): GuardResult {
  const guard = 'warning_delivered';
  if (skip !== null) return pass(guard, skip);
  if (!delivery) return fail(guard, 'no stop warning has been written yet');
  if (delivery.sentAt === null) {
    const why =
      delivery.to?.length === 0 ? 'it has no recipients' : (delivery.lastError ?? 'no email host or not sent yet');
    return fail(guard, `the stop warning has not been delivered: ${why}`);
  }
  const stopAt = stopAfter(delivery.sentAt);
  if (now < stopAt)
    return fail(guard, `warning delivered ${toIso(delivery.sentAt)}; its lead time runs until ${toIso(stopAt)}`);
  return pass(guard, `warning delivered ${toIso(delivery.sentAt)}, ${formatDuration(now - delivery.sentAt)} ago`);
}
