/**
 * The evidence of one Pod's samples over an idle window. Each sample is IDLE, ACTIVE or UNKNOWN,
 * and vouches for the time until the next sample, but never for longer than the gap limit: a
 * missed poll, a failed collector or a stale tail is unknown time, and unknown is never idle.
 * A telemetry gap (an UNKNOWN sample, or silence beyond the gap limit) restarts the evidence:
 * IDLE time before it no longer counts, so a stop never rests on idleness from before a blind spot.
 */
import type { WindowSample } from '../db/idle-state.js';
import type { SampleSeries } from '../db/sample-window.js';

export type SampleClass = 'IDLE' | 'ACTIVE' | 'UNKNOWN';

export type { WindowSample };

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
  const times = series.observedAt;
  let lo = series.start;
  while (lo < times.length && (times[lo] as number) < from) lo++;
  let hi = lo;
  while (hi < times.length && (times[hi] as number) <= to) hi++;
  return classified(series, lo, hi, utilThreshold);
}

/** The samples [lo, hi) of a series, classified. */
function classified(series: SampleSeries, lo: number, hi: number, utilThreshold: number): ClassifiedSample[] {
  const listed: ClassifiedSample[] = [];
  for (let i = lo; i < hi; i++) {
    listed.push({
      at: series.observedAt[i] as number,
      state: CLASSES[classAt(series, i, utilThreshold)] as SampleClass,
      gpuUtil: orNull(series.maxGpuUtil[i]),
      gpuMemoryUtil: orNull(series.maxGpuMemoryUtil[i]),
    });
  }
  return listed;
}

/** A sample's class from its columns (known flag and busiest GPU figure, NaN when none). */
function classAt(series: SampleSeries, i: number, utilThreshold: number): number {
  const util = series.maxGpuUtil[i] as number;
  if (series.known[i] !== 1 || Number.isNaN(util)) return UNKNOWN;
  return util <= utilThreshold ? IDLE : ACTIVE;
}

/**
 * The evidence of one series over a window, read from its columns: no object per sample. The
 * list of samples in the window (for receipts and `why`) and the peaks (for findings) are built
 * only when read, from the series' arrays taken here and the window's indices found here. A
 * class, so the two idle findings and the receipt of a Pod share them without closures made for
 * every Pod.
 */
export class WindowEvidence {
  readonly from: number;
  readonly to: number;
  readonly idleMs: number = 0;
  readonly activeMs: number = 0;
  /** Time covered by UNKNOWN samples, by gaps, and by a tail no fresh sample vouches for. */
  readonly unknownMs: number;
  /** Share of the window vouched for by IDLE samples since the last telemetry gap. */
  readonly coverage: number;
  /** Where the evidence restarted: the first sample after the window's last telemetry gap; null without a gap. */
  readonly restartedAt: number | null;
  readonly idleSamples: number = 0;
  readonly activeSamples: number = 0;
  readonly unknownSamples: number = 0;
  /** The newest sample is UNKNOWN or stale: there is no evidence about now. */
  readonly unknownNow: boolean;
  /** The newest sample at or before `to`, if it is still fresh (within the gap limit). */
  readonly latest: WindowSample | undefined;
  // Private (#): the evidence reads, compares and logs as its figures only. [lo, hi) are the
  // window's samples (lo -1: none).
  readonly #series: SampleSeries;
  readonly #utilThreshold: number;
  readonly #lo: number;
  readonly #hi: number;
  #listed: ClassifiedSample[] | undefined;
  #peaks: { buckets: number; gpu: (number | null)[]; memory: (number | null)[] } | undefined;

  constructor(series: SampleSeries, options: WindowOptions) {
    const { from, to, gapLimitMs, utilThreshold } = options;
    const times = series.observedAt;
    let unknownSpan = 0;
    const restart = lastGapEnd(series, options);
    const idleFrom = Math.max(from, restart ?? from);
    let idleSinceRestart = 0;
    let newest = -1;
    let firstInWindow = -1;
    const end = times.length;
    for (let i = lastAtOrBefore(series, from); i < end; i++) {
      const at = times[i] as number;
      if (at > to) break;
      newest = i;
      const state = classAt(series, i, utilThreshold);
      const next = i + 1 < end ? (times[i + 1] as number) : Number.POSITIVE_INFINITY;
      const until = Math.min(next, to, at + gapLimitMs);
      const start = Math.max(at, from);
      if (until > start) {
        if (state === IDLE) this.idleMs += until - start;
        else if (state === ACTIVE) this.activeMs += until - start;
        else unknownSpan += until - start;
      }
      const idleStart = Math.max(start, idleFrom);
      if (state === IDLE && until > idleStart) idleSinceRestart += until - idleStart;
      if (at >= from) {
        // IDLE samples from before a telemetry gap no longer count towards minSamples either.
        if (state === IDLE) {
          if (at >= idleFrom) this.idleSamples += 1;
        } else if (state === ACTIVE) this.activeSamples += 1;
        else this.unknownSamples += 1;
        if (firstInWindow < 0) firstInWindow = i;
      }
    }
    const length = Math.max(1, to - from);
    const fresh = newest >= 0 && to - (times[newest] as number) <= gapLimitMs;
    this.from = from;
    this.to = to;
    this.unknownMs = unknownSpan + (length - (this.idleMs + this.activeMs + unknownSpan));
    this.coverage = idleSinceRestart / length;
    this.restartedAt = restart !== undefined && restart > from ? restart : null;
    this.unknownNow = !fresh || classAt(series, newest, utilThreshold) === UNKNOWN;
    this.latest = fresh
      ? {
          podId: series.podId,
          observedAt: times[newest] as number,
          state: series.known[newest] === 1 ? 'known' : 'unknown',
          uptimeS: orNull(series.uptimeS[newest]),
          maxGpuUtil: orNull(series.maxGpuUtil[newest]),
          maxGpuMemoryUtil: orNull(series.maxGpuMemoryUtil[newest]),
        }
      : undefined;
    this.#series = series;
    this.#utilThreshold = utilThreshold;
    this.#lo = firstInWindow;
    this.#hi = newest + 1;
  }

  /** The samples observed inside the window, oldest first. */
  get samples(): ClassifiedSample[] {
    this.#listed ??= this.#lo < 0 ? [] : classified(this.#series, this.#lo, this.#hi, this.#utilThreshold);
    return this.#listed;
  }

  /**
   * The window cut into `buckets` equal spans, each the busiest figure of its samples (GPU and
   * GPU memory), null where no sample says: what `samples` would give, without an object each.
   */
  peaks(buckets: number): { gpu: (number | null)[]; memory: (number | null)[] } {
    if (this.#peaks?.buckets !== buckets) {
      const gpu: (number | null)[] = new Array(buckets).fill(null);
      const memory: (number | null)[] = new Array(buckets).fill(null);
      const span = (this.to - this.from) / buckets;
      const { observedAt, maxGpuUtil, maxGpuMemoryUtil } = this.#series;
      for (let i = this.#lo; this.#lo >= 0 && i < this.#hi; i++) {
        const bucket = Math.min(buckets - 1, Math.floor(((observedAt[i] as number) - this.from) / span));
        const util = maxGpuUtil[i] as number;
        const held = maxGpuMemoryUtil[i] as number;
        if (!Number.isNaN(util)) gpu[bucket] = Math.max(gpu[bucket] ?? 0, util);
        if (!Number.isNaN(held)) memory[bucket] = Math.max(memory[bucket] ?? 0, held);
      }
      this.#peaks = { buckets, gpu, memory };
    }
    // Copies: a caller may keep or change what it gets.
    return { gpu: [...this.#peaks.gpu], memory: [...this.#peaks.memory] };
  }
}

/**
 * Where a walk over the window may start: the newest sample at or before `from` (it vouches for
 * the window's first minutes), or the oldest held. Every earlier sample is followed by another
 * at or before `from`, so it says nothing about the window and ends no gap inside it; the
 * series may hold far more history than one rule's window (the longest reader's span).
 */
function lastAtOrBefore(series: SampleSeries, from: number): number {
  const times = series.observedAt;
  let lo = series.start;
  let hi = times.length - 1;
  if (hi < lo || (times[lo] as number) > from) return series.start;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((times[mid] as number) <= from) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The end of the window's last telemetry gap: the first sample after an UNKNOWN one, or after a
 * silence longer than the gap limit, when that gap reaches into [from, to]. Before the first
 * sample there is no gap, only no history yet (coverage and the grace handle that).
 */
function lastGapEnd(series: SampleSeries, options: WindowOptions): number | undefined {
  const { from, to, gapLimitMs, utilThreshold } = options;
  const times = series.observedAt;
  let end: number | undefined;
  for (let i = lastAtOrBefore(series, from); i + 1 < times.length; i++) {
    const at = times[i] as number;
    const next = times[i + 1] as number;
    if (next > to) break;
    const blind = classAt(series, i, utilThreshold) === UNKNOWN || next - at > gapLimitMs;
    if (blind && next > from) end = next;
  }
  return end;
}
