/**
 * Where spend is heading. The forecast projects the burn rate (the spend of a recent window,
 * billed plus not yet billed, per hour) to the end of the period; the run-out time divides what
 * is left by the rate at which the scope spends right now.
 */

import { HOUR_MS } from '../buckets.js';

export interface ForecastInput {
  /** Spend inside the window [windowStart, now), billed and unbilled. */
  windowSpend: number;
  windowStart: number;
  /** The live figure: spend of the period so far. */
  live: number;
  periodEnd: number;
  now: number;
  /** A rate resting on less history than this gives no forecast. */
  minHistoryMs: number;
}

export interface Forecast {
  /** USD per hour over the window. */
  burnPerHour: number;
  /** The spend projected to the period's end. */
  forecast: number;
}

/** The forecast, or null while the window holds less history than `minHistoryMs`: too little to mean it. */
export function forecastSpend(input: ForecastInput): Forecast | null {
  const spanMs = input.now - input.windowStart;
  if (spanMs <= 0 || spanMs < input.minHistoryMs) return null;
  const burnPerHour = (input.windowSpend * HOUR_MS) / spanMs;
  return { burnPerHour, forecast: input.live + (burnPerHour * Math.max(0, input.periodEnd - input.now)) / HOUR_MS };
}

/** When `spent` reaches `amount` at `perHour`; null when it already has or never will. */
export function runsOutAt(spent: number, amount: number, perHour: number, now: number): number | null {
  const left = amount - spent;
  if (left <= 0 || perHour <= 0) return null;
  return now + Math.round((left / perHour) * HOUR_MS);
}

/** `spent` plus `perHour` until `end`: where the period ends if the rate holds. */
export function projectAtRate(spent: number, perHour: number, end: number, now: number): number {
  return spent + (perHour * Math.max(0, end - now)) / HOUR_MS;
}
