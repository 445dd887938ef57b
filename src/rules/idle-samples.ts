/**
 * The evidence of one Pod's samples over an idle window. Each sample is IDLE, ACTIVE or UNKNOWN,
 * and vouches for the time until the next sample, but never for longer than the gap limit: a
 * missed poll, a failed collector or a stale tail is unknown time, and unknown is never idle.
 * A telemetry gap (an UNKNOWN sample, or silence beyond the gap limit) restarts the evidence:
 * IDLE time before it no longer counts, so a stop never rests on idleness from before a blind spot.
 */
export type SampleClass = 'IDLE' | 'ACTIVE' | 'UNKNOWN';

/** The columns of a stored sample (pod_samples) that idle detection reads. */
export interface WindowSample {
  podId: string;
  observedAt: number;
  state: 'known' | 'unknown';
  uptimeS: number | null;
  maxGpuUtil: number | null;
  maxGpuMemoryUtil: number | null;
}

/** IDLE when the busiest GPU is at or below the threshold; no runtime or no GPU figure is UNKNOWN. */
export function classifySample(sample: WindowSample, utilThreshold: number): SampleClass {
  if (sample.state !== 'known' || sample.maxGpuUtil === null) return 'UNKNOWN';
  return sample.maxGpuUtil <= utilThreshold ? 'IDLE' : 'ACTIVE';
}

export interface WindowOptions {
  from: number;
  to: number;
  /** How long a sample vouches for at most (about two poll intervals). */
  gapLimitMs: number;
  utilThreshold: number;
}

export interface ClassifiedSample {
  at: number;
  state: SampleClass;
  gpuUtil: number | null;
  gpuMemoryUtil: number | null;
}

export interface WindowEvidence {
  from: number;
  to: number;
  idleMs: number;
  activeMs: number;
  /** Time covered by UNKNOWN samples, by gaps, and by a tail no fresh sample vouches for. */
  unknownMs: number;
  /** Share of the window vouched for by IDLE samples since the last telemetry gap. */
  coverage: number;
  /** Where the evidence restarted: the first sample after the window's last telemetry gap; null without a gap. */
  restartedAt: number | null;
  idleSamples: number;
  activeSamples: number;
  unknownSamples: number;
  /** The newest sample at or before `to`, if it is still fresh (within the gap limit). */
  latest: WindowSample | undefined;
  /** The newest sample is UNKNOWN or stale: there is no evidence about now. */
  unknownNow: boolean;
  /** The samples observed inside the window, oldest first. */
  samples: ClassifiedSample[];
}

/**
 * Sums what the samples say about [from, to]. `samples` are one Pod's, oldest first, and may
 * start before `from` (the sample just before the window vouches for its first minutes).
 */
export function windowEvidence(samples: readonly WindowSample[], options: WindowOptions): WindowEvidence {
  const { from, to, gapLimitMs, utilThreshold } = options;
  const restart = lastGapEnd(samples, options);
  const idleFrom = Math.max(from, restart ?? from);
  let idleSinceRestart = 0;
  const spans: Record<SampleClass, number> = { IDLE: 0, ACTIVE: 0, UNKNOWN: 0 };
  const counts: Record<SampleClass, number> = { IDLE: 0, ACTIVE: 0, UNKNOWN: 0 };
  const inWindow: ClassifiedSample[] = [];
  let newest: WindowSample | undefined;
  for (let i = 0; i < samples.length; i++) {
    const sample = samples[i] as WindowSample;
    if (sample.observedAt > to) break;
    newest = sample;
    const state = classifySample(sample, utilThreshold);
    const next = samples[i + 1];
    const until = Math.min(next && next.observedAt <= to ? next.observedAt : to, sample.observedAt + gapLimitMs);
    const start = Math.max(sample.observedAt, from);
    if (until > start) spans[state] += until - start;
    if (state === 'IDLE' && until > Math.max(start, idleFrom)) idleSinceRestart += until - Math.max(start, idleFrom);
    if (sample.observedAt >= from) {
      // IDLE samples from before a telemetry gap no longer count towards minSamples either.
      if (state !== 'IDLE' || sample.observedAt >= idleFrom) counts[state] += 1;
      inWindow.push({
        at: sample.observedAt,
        state,
        gpuUtil: sample.maxGpuUtil,
        gpuMemoryUtil: sample.maxGpuMemoryUtil,
      });
    }
  }
  const length = Math.max(1, to - from);
  const vouched = spans.IDLE + spans.ACTIVE + spans.UNKNOWN;
  const fresh = newest !== undefined && to - newest.observedAt <= gapLimitMs;
  return {
    from,
    to,
    idleMs: spans.IDLE,
    activeMs: spans.ACTIVE,
    unknownMs: spans.UNKNOWN + (length - vouched),
    coverage: idleSinceRestart / length,
    restartedAt: restart !== undefined && restart > from ? restart : null,
    idleSamples: counts.IDLE,
    activeSamples: counts.ACTIVE,
    unknownSamples: counts.UNKNOWN,
    latest: fresh ? newest : undefined,
    unknownNow: !fresh || classifySample(newest as WindowSample, utilThreshold) === 'UNKNOWN',
    samples: inWindow,
  };
}

/**
 * The end of the window's last telemetry gap: the first sample after an UNKNOWN one, or after a
 * silence longer than the gap limit, when that gap reaches into [from, to]. Before the first
 * sample there is no gap, only no history yet (coverage and the grace handle that).
 */
function lastGapEnd(samples: readonly WindowSample[], options: WindowOptions): number | undefined {
  const { from, to, gapLimitMs, utilThreshold } = options;
  let end: number | undefined;
  for (let i = 0; i + 1 < samples.length; i++) {
    const sample = samples[i] as WindowSample;
    const next = samples[i + 1] as WindowSample;
    if (next.observedAt > to) break;
    const blind =
      classifySample(sample, utilThreshold) === 'UNKNOWN' || next.observedAt - sample.observedAt > gapLimitMs;
    if (blind && next.observedAt > from) end = next.observedAt;
  }
  return end;
}
