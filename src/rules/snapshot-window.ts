import { DAY_MS } from '../buckets.js';
import type { Config } from '../config/schema.js';
import { idleSamplesFrom, podPollIntervalMs } from '../db/sample-horizon.js';
import type { SnapshotWindow } from '../db/snapshot.js';

/**
 * What a tick's snapshot must hold for every rule at `now`: samples as far back as the longest
 * idle window (and the sample before it) reaches, except for Pods busy by every idle rule
 * (rules/idle.ts judges them active on that alone), the ends of each Pod's samples over the
 * stuck-starting check's lookback, and the waste checks' windows.
 */
export function snapshotWindow(config: Config, now: number): SnapshotWindow {
  const rules = config.idle.rules;
  const waste = config.waste;
  const pollIntervalMs = podPollIntervalMs(config, now);
  return {
    now,
    pollIntervalMs,
    samplesFrom: idleSamplesFrom(config, now, pollIntervalMs),
    // Above every rule's threshold within the shortest window: active by whichever rule matches.
    busy:
      rules.length === 0
        ? null
        : {
            from: now - Math.min(...rules.map((rule) => rule.windowMs)),
            above: Math.max(...rules.map((rule) => rule.utilThreshold)),
          },
    activityFrom: waste.enabled ? now - 2 * waste.stuckStartingMs : null,
    waste: waste.enabled
      ? {
          bucketSize: config.collectors.billing.bucketSize,
          // Twice the threshold, so an endpoint idle all along shows samples reaching back far enough.
          endpointActivityFrom: now - 2 * waste.endpointIdleMs,
          endpointSpendFrom: now - waste.endpointIdleMs,
          scaleDownSpendFrom: now - waste.endpointScaleDownMs,
          volumeSpendFrom: now - DAY_MS,
          // Looking twice the threshold back is enough to decide; a Pod stopped for longer is "over" that.
          computeFrom: now - 2 * waste.stoppedPodVolumeMs,
        }
      : null,
    capacityWatches: config.capacity.watch,
  };
}
