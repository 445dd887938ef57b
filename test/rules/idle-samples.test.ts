import { describe, expect, it } from 'vitest';
import {
  classifySample,
  seriesOf,
  seriesSamples,
  WindowEvidence,
  type WindowOptions,
  type WindowSample,
} from '../../src/rules/idle-samples.js';

/** What one Pod's samples (oldest first, maybe from before the window) say about [from, to]. */
const windowEvidence = (samples: readonly WindowSample[], options: WindowOptions) =>
  new WindowEvidence(seriesOf(samples[0]?.podId ?? '', samples), options);

const MIN = 60_000;
const T0 = Date.parse('2026-11-02T00:00:00Z');

function sample(minute: number, gpu: number | null, state: 'known' | 'unknown' = 'known'): WindowSample {
  return {
    podId: 'p',
    observedAt: T0 + minute * MIN,
    state,
    uptimeS: state === 'known' ? 3600 : null,
    maxGpuUtil: state === 'known' ? gpu : null,
    maxGpuMemoryUtil: state === 'known' ? 0 : null,
  };
}

const minutes = (from: number, to: number, gpu: number | null) =>
  Array.from({ length: to - from + 1 }, (_, i) => sample(from + i, gpu));

const options = (toMinute: number) => ({
  from: T0 + (toMinute - 30) * MIN,
  to: T0 + toMinute * MIN,
  gapLimitMs: 2 * MIN,
  utilThreshold: 5,
});

describe('classifySample', () => {
  it('is IDLE at or below the threshold, ACTIVE above, UNKNOWN without runtime or GPU figure', () => {
    expect(classifySample(sample(0, 5), 5)).toBe('IDLE');
    expect(classifySample(sample(0, 6), 5)).toBe('ACTIVE');
    expect(classifySample(sample(0, 0, 'unknown'), 5)).toBe('UNKNOWN');
    expect(classifySample(sample(0, null), 5)).toBe('UNKNOWN');
  });
});

describe('seriesSamples', () => {
  it('lists the samples within [from, to] as classifySample classes them, bounds included', () => {
    const samples = [sample(0, 1), sample(1, 9), sample(2, null), sample(3, 0, 'unknown'), sample(4, 5), sample(5, 2)];
    expect(seriesSamples(seriesOf('p', samples), T0 + MIN, T0 + 4 * MIN, 5)).toEqual([
      { at: T0 + MIN, state: 'ACTIVE', gpuUtil: 9, gpuMemoryUtil: 0 },
      { at: T0 + 2 * MIN, state: 'UNKNOWN', gpuUtil: null, gpuMemoryUtil: 0 },
      { at: T0 + 3 * MIN, state: 'UNKNOWN', gpuUtil: null, gpuMemoryUtil: null },
      { at: T0 + 4 * MIN, state: 'IDLE', gpuUtil: 5, gpuMemoryUtil: 0 },
    ]);
    expect(seriesSamples(seriesOf('p', samples), T0 + 10 * MIN, T0 + 20 * MIN, 5)).toEqual([]);
  });
});

describe('windowEvidence', () => {
  it('counts a window of idle minute samples as fully covered', () => {
    const evidence = windowEvidence(minutes(0, 40, 0), options(40.5));
    expect(evidence.coverage).toBe(1);
    expect(evidence.idleSamples).toBe(30);
    expect(evidence.unknownNow).toBe(false);
    expect(evidence.samples.map((s) => s.state)).toEqual(Array(30).fill('IDLE'));
  });

  it('counts a gap longer than the limit as unknown time, and restarts the evidence after it', () => {
    // Polls missing from minute 20 to 29: the sample at 19 vouches for two minutes, then nine are unknown.
    const samples = [...minutes(0, 19, 0), ...minutes(30, 40, 0)];
    const evidence = windowEvidence(samples, options(40.5));
    expect(evidence.unknownMs).toBe(9 * MIN);
    // Only the idle time since the gap counts: 10.5 of 30 minutes, not the 21 idle minutes in all.
    expect(evidence.restartedAt).toBe(T0 + 30 * MIN);
    expect(evidence.coverage).toBeCloseTo(10.5 / 30, 6);
    expect(evidence.idleSamples).toBe(11);
  });

  it('restarts the evidence after an UNKNOWN sample, and reports no evidence now when the newest is UNKNOWN', () => {
    const samples = [...minutes(0, 35, 0), sample(36, null, 'unknown'), ...minutes(37, 40, 0)];
    const evidence = windowEvidence(samples, options(40.5));
    expect(evidence.unknownSamples).toBe(1);
    expect(evidence.restartedAt).toBe(T0 + 37 * MIN);
    expect(evidence.coverage).toBeCloseTo(3.5 / 30, 6);
    expect(windowEvidence(samples, options(36.5)).unknownNow).toBe(true);
  });

  it('does not restart for one missed poll: the sample before vouches for two intervals', () => {
    const samples = [...minutes(0, 24, 0), ...minutes(26, 40, 0)];
    const evidence = windowEvidence(samples, options(40.5));
    expect(evidence.restartedAt).toBeNull();
    expect(evidence.coverage).toBe(1);
  });

  it('does not restart for a gap that ended before the window', () => {
    const samples = [...minutes(0, 3, 0), ...minutes(8, 40, 0)];
    const evidence = windowEvidence(samples, options(40.5));
    expect(evidence.restartedAt).toBeNull();
    expect(evidence.coverage).toBe(1);
  });

  it('reports no evidence now when the newest sample is older than the gap limit', () => {
    const evidence = windowEvidence(minutes(0, 30, 0), options(33));
    expect(evidence.latest).toBeUndefined();
    expect(evidence.unknownNow).toBe(true);
  });

  it('lets the sample just before the window vouch for its first minutes, and sees a busy one', () => {
    const samples = [sample(9, 80), ...minutes(10, 40, 0)];
    const evidence = windowEvidence(samples, options(39.5));
    expect(evidence.activeMs).toBe(0.5 * MIN);
    expect(evidence.activeSamples).toBe(0);
  });

  it('judges the same whatever history lies before the sample just before the window', () => {
    // Hours before the window: busy, unknown, missed polls; then the window's own minutes.
    const history = [...minutes(-200, -120, 80), sample(-119, null, 'unknown'), ...minutes(-100, 4, 0)];
    const cases: Array<[string, WindowSample[], number]> = [
      ['idle throughout', [...history, ...minutes(5, 40, 0)], 40.5],
      ['a gap reaching into the window', [...history, ...minutes(12, 40, 0)], 40.5],
      ['a sample exactly at the start', [...history, ...minutes(10, 40, 0)], 40],
      ['an unknown sample just before', [...history, sample(9.5, null, 'unknown'), ...minutes(10, 40, 0)], 40.2],
      ['busy just before', [...history, sample(9.9, 70), ...minutes(10, 40, 0)], 40.5],
      ['nothing since long before', history, 40.5],
    ];
    for (const [what, samples, toMinute] of cases) {
      const { from } = options(toMinute);
      const kept = samples.findLastIndex((s) => s.observedAt <= from);
      const trimmed = samples.slice(Math.max(0, kept));
      const figures = (e: ReturnType<typeof windowEvidence>) => ({
        what,
        ...Object.fromEntries(Object.entries(e)),
        latest: e.latest,
        samples: e.samples,
        peaks: e.peaks(30),
      });
      expect(figures(windowEvidence(samples, options(toMinute)))).toEqual(
        figures(windowEvidence(trimmed, options(toMinute))),
      );
    }
  });

  it('cuts the window into buckets of the busiest figures, null where no known figure falls', () => {
    // Minutes 10..40 in a window 10.5..40.5: an unknown sample at 20, a busy minute at 30.
    const samples = [...minutes(10, 19, 2), sample(20, null, 'unknown'), ...minutes(21, 29, 3), sample(30, 70)];
    samples.push(...minutes(31, 40, 1).map((s) => ({ ...s, maxGpuMemoryUtil: 40 })));
    const evidence = windowEvidence(samples, options(40.5));
    const { gpu, memory } = evidence.peaks(30);
    // One minute per bucket: bucket i holds minute 11 + i (minute 10 is before the window).
    expect(gpu.slice(0, 9)).toEqual(Array(9).fill(2));
    expect(gpu[9]).toBeNull();
    expect(memory[9]).toBeNull();
    expect(gpu.slice(10, 19)).toEqual(Array(9).fill(3));
    expect(gpu[19]).toBe(70);
    expect(gpu.slice(20)).toEqual(Array(10).fill(1));
    expect(memory.slice(20)).toEqual(Array(10).fill(40));
    // The same figures as listing every sample of the window would give.
    const listed: (number | null)[] = Array(30).fill(null);
    for (const s of evidence.samples) {
      const i = Math.min(29, Math.floor((s.at - evidence.from) / MIN));
      if (s.gpuUtil !== null) listed[i] = Math.max(listed[i] ?? 0, s.gpuUtil);
    }
    expect(gpu).toEqual(listed);
  });
});
