import { describe, expect, it } from 'vitest';
import { forecastSpend, runsOutAt } from '../../src/rules/forecast.js';

const HOUR = 3_600_000;

describe('forecastSpend', () => {
  it('projects the window’s burn rate to the end of the period', () => {
    expect(
      forecastSpend({
        windowSpend: 48,
        windowStart: 0,
        live: 100,
        periodEnd: 34 * HOUR,
        now: 24 * HOUR,
        minHistoryMs: HOUR,
      }),
    ).toEqual({ burnPerHour: 2, forecast: 120 });
  });

  it('gives nothing on less history than asked for', () => {
    const input = { windowSpend: 5, windowStart: 0, live: 5, periodEnd: 10 * HOUR, now: 2 * HOUR };
    expect(forecastSpend({ ...input, minHistoryMs: 3 * HOUR })).toBeNull();
    expect(forecastSpend({ ...input, minHistoryMs: 2 * HOUR })?.burnPerHour).toBe(2.5);
  });
});

describe('runsOutAt', () => {
  it('divides what is left by the rate; null when already spent or not spending', () => {
    expect(runsOutAt(60, 100, 10, 0)).toBe(4 * HOUR);
    expect(runsOutAt(100, 100, 10, 0)).toBeNull();
    expect(runsOutAt(50, 100, 0, 0)).toBeNull();
  });
});
