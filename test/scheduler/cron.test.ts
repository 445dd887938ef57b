import { describe, expect, it } from 'vitest';
import { cronIntervalMs, nextCronTime } from '../../src/scheduler/cron.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('nextCronTime', () => {
  it('finds the next minute boundary for an every-minute schedule', () => {
    expect(iso(nextCronTime('* * * * *', at('2026-11-02T10:00:00Z')))).toBe('2026-11-02T10:01:00.000Z');
    expect(iso(nextCronTime('* * * * *', at('2026-11-02T10:00:59.500Z')))).toBe('2026-11-02T10:01:00.000Z');
  });

  it('steps over hours, days and months', () => {
    expect(iso(nextCronTime('*/15 * * * *', at('2026-11-02T10:50:00Z')))).toBe('2026-11-02T11:00:00.000Z');
    expect(iso(nextCronTime('30 2 * * *', at('2026-11-02T03:00:00Z')))).toBe('2026-11-03T02:30:00.000Z');
    expect(iso(nextCronTime('0 0 1 * *', at('2026-11-30T12:00:00Z')))).toBe('2026-12-01T00:00:00.000Z');
    expect(iso(nextCronTime('0 9 * * 1', at('2026-11-04T00:00:00Z')))).toBe('2026-11-09T09:00:00.000Z');
  });

  it('honours a seconds field', () => {
    expect(iso(nextCronTime('*/20 * * * * *', at('2026-11-02T10:00:41Z')))).toBe('2026-11-02T10:01:00.000Z');
  });

  it('is strictly after the given time', () => {
    const t = at('2026-11-02T10:15:00Z');
    expect(nextCronTime('*/15 * * * *', t)).toBe(at('2026-11-02T10:30:00Z'));
  });

  it('measures a schedule interval', () => {
    expect(cronIntervalMs('*/5 * * * *', at('2026-11-02T10:00:00Z'))).toBe(300_000);
  });
});
