import { describe, expect, it } from 'vitest';
import { cronIntervalMs, nextCronTime } from '../../src/scheduler/cron.js';
import { cronProblem } from '../../src/scheduler/cron-fields.js';

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

describe('cronProblem', () => {
  it('accepts what cron allows: names, Sunday as 7, 29 February, seconds, lists of steps', () => {
    for (const ok of [
      '*/5 * * * *',
      '0 9 * * mon-fri',
      '0 9 * JAN,Feb sunday',
      '0 0 * * 7',
      '0 0 29 2 *',
      '0 0 31 1-3 *',
      '*/20 * * * * *',
      '0 0,30 */2 * * ?',
      '0-30/10 * * * *',
    ]) {
      expect(cronProblem(ok), ok).toBeUndefined();
    }
  });

  it('names the field and what is wrong with it', () => {
    expect(cronProblem('*/60 * * * *')).toBe('minute field "*/60": step 60 is not smaller than the minute range 0-59');
    expect(cronProblem('0 */24 * * *')).toBe('hour field "*/24": step 24 is not smaller than the hour range 0-23');
    expect(cronProblem('0 0 0 * *')).toBe('day-of-month field "0": 0 is outside the day-of-month range 1-31');
    expect(cronProblem('0 0 * 13 *')).toBe('month field "13": 13 is outside the month range 1-12');
    expect(cronProblem('0 0 * * 8')).toBe('weekday field "8": 8 is outside the weekday range 0-7');
    expect(cronProblem('60 * * * * *')).toBe('second field "60": 60 is outside the second range 0-59');
    expect(cronProblem('5/15 * * * *')).toBe(
      'minute field "5/15": step "/15" needs a range or "*" before it (e.g. "*/15")',
    );
    expect(cronProblem('1,,2 * * * *')).toBe('minute field "1,,2": empty item in a list');
    expect(cronProblem('0 0 30,31 2 *')).toBe(
      'day-of-month "30,31" never occurs in month "2", so the schedule never fires',
    );
  });
});
