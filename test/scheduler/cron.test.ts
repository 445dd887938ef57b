import cron from 'node-cron';
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

  it('lands where walking second by second lands', () => {
    // The reference: the first whole second after `from` that every field allows.
    const walk = (expression: string, from: number) => {
      const fields = cron.parse(expression);
      const allowed = (list: ReadonlyArray<number | string>) => new Set(list.map(Number));
      const [second, minute, hour, day, month, weekday] = [
        fields.second,
        fields.minute,
        fields.hour,
        fields.dayOfMonth,
        fields.month,
        fields.dayOfWeek,
      ].map(allowed) as Set<number>[];
      for (let t = Math.floor(from / 1000) * 1000 + 1000; ; t += 1000) {
        const d = new Date(t);
        if (
          second?.has(d.getUTCSeconds()) &&
          minute?.has(d.getUTCMinutes()) &&
          hour?.has(d.getUTCHours()) &&
          day?.has(d.getUTCDate()) &&
          month?.has(d.getUTCMonth() + 1) &&
          weekday?.has(d.getUTCDay())
        ) {
          return t;
        }
      }
    };
    const expressions = ['30 * * * * *', '*/5 * * * *', '17 3 * * *', '*/20 5,40 */3 * * *', '0 0,30 22 * * *'];
    const starts = [
      '2026-11-02T10:00:00Z',
      '2026-11-02T10:59:59.999Z',
      '2026-11-02T23:41:17.250Z',
      '2026-12-31T23:59:30Z',
    ];
    for (const expression of expressions) {
      for (const start of starts) {
        expect(iso(nextCronTime(expression, at(start))), `${expression} after ${start}`).toBe(
          iso(walk(expression, at(start))),
        );
      }
    }
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
