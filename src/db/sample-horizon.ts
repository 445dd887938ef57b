import type { Config } from '../config/schema.js';
import { cronIntervalMs } from '../scheduler/cron.js';

/** How often the Pod collector polls at `now`: the unit of the idle rule's gap limit and freshness. */
export function podPollIntervalMs(config: Config, now: number): number {
  return cronIntervalMs(config.collectors.pods.schedule, now);
}

/** A sample vouches for at most two poll intervals: a longer gap is unknown time. */
export function gapLimitMs(pollIntervalMs: number): number {
  return 2 * pollIntervalMs;
}

/**
 * The oldest sample the idle rules read at `now`: the longest rule's window, plus the sample just
 * before it (it vouches for the window's first minutes). What a Pod's sample tail keeps.
 */
export function idleSamplesFrom(config: Config, now: number, pollIntervalMs = podPollIntervalMs(config, now)): number {
  const longest = Math.max(0, ...config.idle.rules.map((rule) => rule.windowMs));
  return now - longest - gapLimitMs(pollIntervalMs);
}
