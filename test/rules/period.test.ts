import { describe, expect, it } from 'vitest';
import { toIso } from '../../src/clock.js';
import { currentPeriod, localMidnight, type PeriodSpec } from '../../src/rules/period.js';
import { seededRandom } from '../helpers/seeded-random.js';

const spec = (overrides: Partial<PeriodSpec>): PeriodSpec => ({
  period: 'month',
  timeZone: 'UTC',
  weekStartsOn: 'monday',
  monthResetDay: 1,
  ...overrides,
});

const span = (s: PeriodSpec, at: string) => {
  const period = currentPeriod(s, Date.parse(at));
  return [toIso(period.startMs), toIso(period.endMs), period.label];
};

describe('currentPeriod', () => {
  it('cuts UTC days, weeks and months', () => {
    expect(span(spec({ period: 'day' }), '2026-11-02T23:59:59Z')).toEqual([
      '2026-11-02T00:00:00Z',
      '2026-11-03T00:00:00Z',
      '2026-11-02',
    ]);
    // 2026-11-04 is a Wednesday.
    expect(span(spec({ period: 'week' }), '2026-11-04T12:00:00Z')).toEqual([
      '2026-11-02T00:00:00Z',
      '2026-11-09T00:00:00Z',
      'week of 2026-11-02',
    ]);
    expect(span(spec({ period: 'week', weekStartsOn: 'sunday' }), '2026-11-04T12:00:00Z')[0]).toBe(
      '2026-11-01T00:00:00Z',
    );
    expect(span(spec({ period: 'week', weekStartsOn: 'wednesday' }), '2026-11-04T00:00:00Z')[0]).toBe(
      '2026-11-04T00:00:00Z',
    );
    expect(span(spec({}), '2026-12-31T23:00:00Z')).toEqual(['2026-12-01T00:00:00Z', '2027-01-01T00:00:00Z', '2026-12']);
  });

  it('starts a month on its reset day, reaching back into the previous month before it', () => {
    expect(span(spec({ monthResetDay: 15 }), '2026-11-14T23:00:00Z')).toEqual([
      '2026-10-15T00:00:00Z',
      '2026-11-15T00:00:00Z',
      'month from 2026-10-15',
    ]);
    expect(span(spec({ monthResetDay: 15 }), '2026-01-20T00:00:00Z').slice(0, 2)).toEqual([
      '2026-01-15T00:00:00Z',
      '2026-02-15T00:00:00Z',
    ]);
    expect(span(spec({ monthResetDay: 28 }), '2026-01-05T00:00:00Z')[0]).toBe('2025-12-28T00:00:00Z');
  });

  it('counts days in the budget’s time zone, across daylight saving changes', () => {
    // 23:30 UTC on 1 Nov is already 2 Nov in Paris (UTC+1 in winter).
    expect(span(spec({ period: 'day', timeZone: 'Europe/Paris' }), '2026-11-01T23:30:00Z')).toEqual([
      '2026-11-01T23:00:00Z',
      '2026-11-02T23:00:00Z',
      '2026-11-02',
    ]);
    // The day Paris springs forward has 23 hours; the one it falls back, 25.
    const spring = currentPeriod(spec({ period: 'day', timeZone: 'Europe/Paris' }), Date.parse('2026-03-29T12:00:00Z'));
    expect(spring.endMs - spring.startMs).toBe(23 * 3_600_000);
    const autumn = currentPeriod(spec({ period: 'day', timeZone: 'Europe/Paris' }), Date.parse('2026-10-25T12:00:00Z'));
    expect(autumn.endMs - autumn.startMs).toBe(25 * 3_600_000);
    // A month in New York spans the November change: 30 days and one hour.
    expect(span(spec({ timeZone: 'America/New_York' }), '2026-11-15T00:00:00Z').slice(0, 2)).toEqual([
      '2026-11-01T04:00:00Z',
      '2026-12-01T05:00:00Z',
    ]);
    // Half-hour offsets.
    expect(span(spec({ period: 'day', timeZone: 'Asia/Kolkata' }), '2026-11-02T20:00:00Z')[0]).toBe(
      '2026-11-02T18:30:00Z',
    );
  });

  it('finds local midnight even where a DST change skips it', () => {
    // Santiago springs forward at midnight: 6 Sep 2026 begins at 01:00 local (04:00 UTC).
    expect(toIso(localMidnight(2026, 9, 6, 'America/Santiago'))).toBe('2026-09-06T04:00:00Z');
    expect(toIso(localMidnight(2026, 13, 1, 'UTC'))).toBe('2027-01-01T00:00:00Z');
  });

  it('cuts UTC periods as the time-zone formatter cuts Etc/UTC, at any instant', () => {
    const random = seededRandom(26);
    for (let i = 0; i < 500; i++) {
      const at = Date.UTC(1999, 0, 1) + Math.floor(random() * 40 * 365 * 86_400_000);
      for (const period of ['day', 'week', 'month'] as const) {
        const weekStartsOn = (['sunday', 'monday', 'saturday'] as const)[i % 3];
        const shape = { period, weekStartsOn, monthResetDay: 1 + (i % 28) };
        expect(currentPeriod(spec({ ...shape, timeZone: 'UTC' }), at)).toEqual(
          currentPeriod(spec({ ...shape, timeZone: 'Etc/UTC' }), at),
        );
      }
    }
  });
});
