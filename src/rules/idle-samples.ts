/**
 * The evidence of one Pod's samples over an idle window. Each sample is IDLE, ACTIVE or UNKNOWN,
 * and vouches for the time until the next sample, but never for longer than the gap limit: a
 * missed poll, a failed collector or a stale tail is unknown time, and unknown is never idle.
 * A telemetry gap (an UNKNOWN sample, or silence beyond the gap limit) restarts the evidence:
 * IDLE time before it no longer counts, so a stop never rests on idleness from before a blind spot.
 */
import type { SampleSeries } from '../db/sample-window.js';

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
  /**
   * The window cut into `buckets` equal spans, each the busiest figure of its samples (GPU and
   * GPU memory), null where no sample says: what `samples` would give, without an object each.
   */
  peaks(buckets: number): { gpu: (number | null)[]; memory: (number | null)[] };
}

/**
 * Sums what the samples say about [from, to]. `samples` are one Pod's, oldest first, and may
 * start before `from` (the sample just before the window vouches for its first minutes).
 */
export function windowEvidence(samples: readonly WindowSample[], options: WindowOptions): WindowEvidence {
  return seriesEvidence(seriesOf(samples[0]?.podId ?? '', samples), options);
}

/** The same samples, column by column (null figures as NaN). */
export function seriesOf(podId: string, samples: readonly WindowSample[]): SampleSeries {
  return {
    podId,
    start: 0,
    observedAt: samples.map((sample) => sample.observedAt),
    known: samples.map((sample) => (sample.state === 'known' ? 1 : 0)),
    uptimeS: samples.map((sample) => sample.uptimeS ?? Number.NaN),
    maxGpuUtil: samples.map((sample) => sample.maxGpuUtil ?? Number.NaN),
    maxGpuMemoryUtil: samples.map((sample) => sample.maxGpuMemoryUtil ?? Number.NaN),
    landed: 0,
    rewritten: 0,
  };
}

const IDLE = 0;
const ACTIVE = 1;
const UNKNOWN = 2;
const CLASSES: readonly SampleClass[] = ['IDLE', 'ACTIVE', 'UNKNOWN'];
const orNull = (value: number | undefined): number | null =>
  value === undefined || Number.isNaN(value) ? null : value;

/** The samples of one Pod's series observed in [from, to], classified as classifySample does. */
export function seriesSamples(
  series: SampleSeries,
  from: number,
  to: number,
  utilThreshold: number,
): ClassifiedSample[] {
  const { observedAt: times, known, maxGpuUtil: gpu, maxGpuMemoryUtil: memory } = series;
  const listed: ClassifiedSample[] = [];
  for (let i = series.start; i < times.length; i++) {
    const at = times[i] as number;
    if (at > to) break;
    if (at < from) continue;
    const gpuUtil = orNull(gpu[i]);
    const state = known[i] === 1 ? 'known' : 'unknown';
    listed.push({
      at,
      state: classifySample(
        { podId: series.podId, observedAt: at, state, uptimeS: null, maxGpuUtil: gpuUtil, maxGpuMemoryUtil: null },
        utilThreshold,
      ),
      gpuUtil,
      gpuMemoryUtil: orNull(memory[i]),
    });
  }
  return listed;
}

/**
 * windowEvidence over a column store: no object per sample. The list of samples in the window
 * (for receipts and `why`) is built only when read, from the arrays as they were at this call.
 */
export function seriesEvidence(series: SampleSeries, options: WindowOptions): WindowEvidence {
  const { from, to, gapLimitMs, utilThreshold } = options;
  const { observedAt: times, known, maxGpuUtil: gpu } = series;
  const spans = [0, 0, 0];
  const counts = [0, 0, 0];
  const classOf = (i: number): number => {
    const util = gpu[i] as number;
    if (known[i] !== 1 || Number.isNaN(util)) return UNKNOWN;
    return util <= utilThreshold ? IDLE : ACTIVE;
  };
  const restart = lastGapEnd(series, options, classOf);
  const idleFrom = Math.max(from, restart ?? from);
  let idleSinceRestart = 0;
  let newest = -1;
  let firstInWindow = -1;
  const end = times.length;
  for (let i = series.start; i < end; i++) {
    const at = times[i] as number;
    if (at > to) break;
    newest = i;
    const state = classOf(i);
    const next = i + 1 < end ? (times[i + 1] as number) : Number.POSITIVE_INFINITY;
    const until = Math.min(next, to, at + gapLimitMs);
    const start = Math.max(at, from);
    if (until > start) spans[state] = (spans[state] as number) + until - start;
    const idleStart = Math.max(start, idleFrom);
    if (state === IDLE && until > idleStart) idleSinceRestart += until - idleStart;
    if (at >= from) {
      // IDLE samples from before a telemetry gap no longer count towards minSamples either.
      if (state !== IDLE || at >= idleFrom) counts[state] = (counts[state] as number) + 1;
      if (firstInWindow < 0) firstInWindow = i;
    }
  }
  const length = Math.max(1, to - from);
  const [idleMs = 0, activeMs = 0, unknownSpan = 0] = spans;
  const fresh = newest >= 0 && to - (times[newest] as number) <= gapLimitMs;
  const latest: WindowSample | undefined = fresh
    ? {
        podId: series.podId,
        observedAt: times[newest] as number,
        state: known[newest] === 1 ? 'known' : 'unknown',
        uptimeS: orNull(series.uptimeS[newest]),
        maxGpuUtil: orNull(gpu[newest]),
        maxGpuMemoryUtil: orNull(series.maxGpuMemoryUtil[newest]),
      }
    : undefined;
  const memory = series.maxGpuMemoryUtil;
  const lo = firstInWindow;
  const hi = newest + 1;
  let listed: ClassifiedSample[] | undefined;
  return {
    from,
    to,
    idleMs,
    activeMs,
    unknownMs: unknownSpan + (length - (idleMs + activeMs + unknownSpan)),
    coverage: idleSinceRestart / length,
    restartedAt: restart !== undefined && restart > from ? restart : null,
    idleSamples: counts[IDLE] as number,
    activeSamples: counts[ACTIVE] as number,
    unknownSamples: counts[UNKNOWN] as number,
    latest,
    unknownNow: !fresh || classOf(newest) === UNKNOWN,
    get samples(): ClassifiedSample[] {
      if (listed === undefined) {
        listed = [];
        for (let i = lo; lo >= 0 && i < hi; i++) {
          listed.push({
            at: times[i] as number,
            state: CLASSES[classOf(i)] as SampleClass,
            gpuUtil: orNull(gpu[i]),
            gpuMemoryUtil: orNull(memory[i]),
          });
        }
      }
      return listed;
    },
    peaks(buckets) {
      const gpuPeaks: (number | null)[] = new Array(buckets).fill(null);
      const memoryPeaks: (number | null)[] = new Array(buckets).fill(null);
      const span = (to - from) / buckets;
      for (let i = lo; lo >= 0 && i < hi; i++) {
        const bucket = Math.min(buckets - 1, Math.floor(((times[i] as number) - from) / span));
        const util = gpu[i] as number;
        const held = memory[i] as number;
        if (!Number.isNaN(util)) gpuPeaks[bucket] = Math.max(gpuPeaks[bucket] ?? 0, util);
        if (!Number.isNaN(held)) memoryPeaks[bucket] = Math.max(memoryPeaks[bucket] ?? 0, held);
      }
      return { gpu: gpuPeaks, memory: memoryPeaks };
    },
  };
}

/**
 * The end of the window's last telemetry gap: the first sample after an UNKNOWN one, or after a
 * silence longer than the gap limit, when that gap reaches into [from, to]. Before the first
 * sample there is no gap, only no history yet (coverage and the grace handle that).
 */
function lastGapEnd(
  series: SampleSeries,
  options: WindowOptions,
  classOf: (index: number) => number,
): number | undefined {
  const { from, to, gapLimitMs } = options;
  const times = series.observedAt;
  let end: number | undefined;
  for (let i = series.start; i + 1 < times.length; i++) {
    const at = times[i] as number;
    const next = times[i + 1] as number;
    if (next > to) break;
    const blind = classOf(i) === UNKNOWN || next - at > gapLimitMs;
    if (blind && next > from) end = next;
  }
  return end;
}
