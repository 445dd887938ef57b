import { HOUR_MS } from '../buckets.js';
import type { OnSpentConfig } from '../config/sections/budgets.js';
import { formatClock, formatElapsed, formatUsd, formatUsdPerHour } from '../format.js';
import type { BudgetStatus } from './budget-status.js';
import { projectAtRate, runsOutAt } from './forecast.js';

/**
 * A budget cap (`onSpent.action: stop`), pure: when its stop is due, and which Pods it stops.
 *
 * "Fits": with the Pods chosen stopped, the live figure plus the rate left until the period's end
 * stays within the amount (`live + perHourAfter × timeLeft ≤ amount`). The rate left is the
 * scope's whole current rate (Pods, and for an account budget its volumes, endpoints...) minus
 * what each chosen Pod's stop saves (its volume disk keeps billing). Once the amount is spent
 * nothing but a rate of 0 fits, so a cap due at 100 % stops every Pod it may; a lower threshold
 * leaves money for the rest of the period, and the cheaper Pods keep running when it suffices.
 */

/** A running Pod in the budget's scope, as the cap weighs it. */
export interface CapPod {
  podId: string;
  name: string;
  /** What it costs now, USD per hour: the order of the stops, most expensive first. */
  perHour: number;
  /** What stopping it saves, USD per hour. */
  savingPerHr: number;
  /** False for a Pod the cap must not stop (locked in RunPod, Keep running): its rate stays. */
  stoppable: boolean;
}

/** The budget's figures the cap is judged on, at the moment it judges (now, or when the stop is due). */
export interface CapFigures {
  amount: number;
  /** Spend of the period so far, billed and not yet billed. */
  live: number;
  /** The scope's whole current rate, USD per hour. */
  perHour: number;
  /** Until the period's end. */
  timeLeftMs: number;
}

export interface CapSelection {
  /** The Pods to stop, most expensive first. */
  stop: CapPod[];
  /** Pods that would have been chosen but may not be stopped, in the same order. */
  spared: CapPod[];
  perHourAfter: number;
  /** Live plus the rate left until the period's end. */
  projectedAfter: number;
  /** Whether the rate left fits; false when nothing was left to stop first. */
  fits: boolean;
}

/** Most expensive first, ties by Pod id, so the same figures always choose the same Pods. */
export function capOrder(a: CapPod, b: CapPod): number {
  return b.perHour - a.perHour || a.podId.localeCompare(b.podId);
}

/** The Pods to stop, most expensive first, until the rate left fits the remaining budget or none is left. */
export function selectCapStops(figures: CapFigures, pods: readonly CapPod[]): CapSelection {
  const project = (perHour: number) => projectAtRate(figures.live, perHour, figures.timeLeftMs, 0);
  const fits = (perHour: number) => project(perHour) <= figures.amount;
  const stop: CapPod[] = [];
  const spared: CapPod[] = [];
  let perHourAfter = figures.perHour;
  for (const pod of [...pods].sort(capOrder)) {
    if (fits(perHourAfter)) break;
    if (!pod.stoppable) {
      spared.push(pod);
      continue;
    }
    stop.push(pod);
    perHourAfter = Math.max(0, perHourAfter - pod.savingPerHr);
  }
  return { stop, spared, perHourAfter, projectedAfter: project(perHourAfter), fits: fits(perHourAfter) };
}

/** Where a budget's spend stands, as the budget rule read it (BudgetStatus has these). */
export interface CapReading {
  amount: number;
  live: number;
  currentPerHour: number;
  periodEndMs: number;
}

/**
 * Where the cap stands at `now`:
 * - `due`: the live figure has reached the threshold; the Pods are chosen on the figures of now.
 * - `warn`: at the current rate it reaches the threshold within `warnLead` (and before the
 *   period ends); `dueAt` is that moment, and the Pods are chosen on the figures it will have then
 *   (live at the threshold, the time left from then), so the warning names the Pods the stop will.
 * - `quiet`: neither; no stop is planned.
 */
export type CapPhase =
  | { phase: 'quiet' }
  | { phase: 'warn' | 'due'; dueAt: number; limit: number; figures: CapFigures };

export function capPhase(
  reading: CapReading,
  onSpent: Pick<OnSpentConfig, 'threshold' | 'warnLeadMs'>,
  now: number,
): CapPhase {
  const limit = (reading.amount * onSpent.threshold) / 100;
  const at = (dueAt: number, live: number): CapFigures => ({
    amount: reading.amount,
    live,
    perHour: reading.currentPerHour,
    timeLeftMs: Math.max(0, reading.periodEndMs - dueAt),
  });
  if (reading.live >= limit) return { phase: 'due', dueAt: now, limit, figures: at(now, reading.live) };
  const reachesAt = runsOutAt(reading.live, limit, reading.currentPerHour, now);
  if (reachesAt === null || reachesAt >= reading.periodEndMs || reachesAt > now + onSpent.warnLeadMs) {
    return { phase: 'quiet' };
  }
  return { phase: 'warn', dueAt: reachesAt, limit, figures: at(reachesAt, limit) };
}

/** One Pod the cap means to stop (or would, but may not: `spared`), and why in one line. */
export interface CapPlan {
  pod: CapPod;
  spared: boolean;
  /** When the stop is due: when the live figure reaches the threshold (projected, or as it happened). */
  stopAt: number;
  /** The budget period's start: one cap episode per Pod and period. */
  occurrence: number;
  why: string;
}

/**
 * The cap's plan for one budget at `now`: nothing while it is quiet; else the Pods its selection
 * names, each with the budget's figures in words (they land on the warning and every receipt,
 * both of which name the budget already).
 * A due stop's time is when the live figure crossed the threshold at the current rate, so it
 * stays put from tick to tick.
 */
export function capPlans(
  status: Pick<BudgetStatus, 'amount' | 'live' | 'currentPerHour' | 'period' | 'timeZone'>,
  onSpent: Pick<OnSpentConfig, 'threshold' | 'warnLeadMs'>,
  pods: readonly CapPod[],
  now: number,
): CapPlan[] {
  const reading = { ...status, periodEndMs: status.period.endMs };
  const phase = capPhase(reading, onSpent, now);
  if (phase.phase === 'quiet') return [];
  const selection = selectCapStops(phase.figures, pods);
  const stopAt =
    phase.phase === 'warn' || status.currentPerHour <= 0
      ? phase.dueAt
      : now - Math.round(((status.live - phase.limit) / status.currentPerHour) * HOUR_MS);
  const why = capWhy(status, onSpent.threshold, phase, selection, stopAt);
  const plan = (pod: CapPod, spared: boolean): CapPlan => ({
    pod,
    spared,
    stopAt,
    occurrence: status.period.startMs,
    why,
  });
  return [...selection.stop.map((pod) => plan(pod, false)), ...selection.spared.map((pod) => plan(pod, true))];
}

function capWhy(
  status: Pick<BudgetStatus, 'amount' | 'live' | 'currentPerHour' | 'period' | 'timeZone'>,
  threshold: number,
  phase: Exclude<CapPhase, { phase: 'quiet' }>,
  selection: CapSelection,
  stopAt: number,
): string {
  const reached =
    phase.phase === 'due'
      ? `reached ${threshold}% (${formatUsd(phase.limit)}) at about ${formatClock(stopAt, status.timeZone)}`
      : `reaches ${threshold}% (${formatUsd(phase.limit)}) at about ${formatClock(stopAt, status.timeZone)}`;
  const rest = selection.fits
    ? `${formatUsdPerHour(selection.perHourAfter)} left fits: ${formatUsd(selection.projectedAfter)} by the period's end`
    : `${formatUsdPerHour(selection.perHourAfter)} left still does not fit (${formatUsd(selection.projectedAfter)} by the period's end): nothing more to stop`;
  return (
    `${formatUsd(status.live)} of ${formatUsd(status.amount)} spent (${status.period.label}) at ` +
    `${formatUsdPerHour(status.currentPerHour)}, ${reached} with ${formatElapsed(phase.figures.timeLeftMs)} of the period left; ` +
    `stopping the most expensive Pods first: ${rest}`
  );
}
