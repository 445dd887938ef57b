import { describe, expect, it } from 'vitest';
import { windowNear, windowsAround } from '../../src/rules/off-hours.js';

const nights = {
  timeZone: 'Europe/Paris',
  offHours: [
    {
      days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'] as Array<
        'monday' | 'tuesday' | 'wednesday' | 'thursday' | 'friday'
      >,
      from: '20:00',
      to: '08:00',
    },
    { days: ['saturday', 'sunday'] as Array<'saturday' | 'sunday'>, from: '00:00', to: '00:00' },
  ],
};
const iso = (ms: number) => new Date(ms).toISOString().replace('.000', '');
const span = (w: { start: number; end: number } | undefined) => (w ? `${iso(w.start)} → ${iso(w.end)}` : 'none');

describe('off-hours windows', () => {
  it('reads days and times on the zone’s clocks, a window to `to` the next day, and joins windows that touch', () => {
    // Wednesday 2 December 2026, 10:00 in Paris (UTC+1).
    const now = Date.parse('2026-12-02T09:00:00Z');
    const windows = windowsAround(nights, now).map(span);
    expect(windows).toContain('2026-12-02T19:00:00Z → 2026-12-03T07:00:00Z');
    // Friday 20:00 to Monday 00:00: the weekend days join Friday's night; Monday's night starts at 20:00.
    expect(windows).toContain('2026-12-04T19:00:00Z → 2026-12-06T23:00:00Z');
    expect(windows).toContain('2026-12-07T19:00:00Z → 2026-12-08T07:00:00Z');
  });

  it('finds the window holding now, else the next one within the lead, else none', () => {
    expect(span(windowNear(nights, Date.parse('2026-12-02T18:50:00Z'), 15 * 60_000))).toBe(
      '2026-12-02T19:00:00Z → 2026-12-03T07:00:00Z',
    );
    expect(windowNear(nights, Date.parse('2026-12-02T18:40:00Z'), 15 * 60_000)).toBeUndefined();
    expect(span(windowNear(nights, Date.parse('2026-12-03T06:59:00Z'), 0))).toBe(
      '2026-12-02T19:00:00Z → 2026-12-03T07:00:00Z',
    );
    expect(windowNear(nights, Date.parse('2026-12-03T07:00:00Z'), 0)).toBeUndefined();
  });

  it('keeps local times across a DST change: 20:00 in Paris is 19:00 UTC before it and 18:00 after', () => {
    // Summer time begins on Sunday 29 March 2026 at 02:00.
    const windows = windowsAround(nights, Date.parse('2026-03-29T12:00:00Z')).map(span);
    expect(windows).toContain('2026-03-27T19:00:00Z → 2026-03-29T22:00:00Z');
    expect(windows).toContain('2026-03-30T18:00:00Z → 2026-03-31T06:00:00Z');
  });
});
