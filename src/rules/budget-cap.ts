import { HOUR_MS } from '../buckets.js';
import type { OnSpentConfig } from '../config/sections/budgets.js';
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

/** USD the chosen stops save until the period's end, for receipts and messages. */
export function savedByPeriodEnd(selection: CapSelection, figures: CapFigures): number {
  return ((figures.perHour - selection.perHourAfter) * figures.timeLeftMs) / HOUR_MS;
}
