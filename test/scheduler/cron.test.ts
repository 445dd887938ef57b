import { describe, expect, it } from 'vitest';
import { cronIntervalMs, cronProblem, nextCronTime } from '../../src/scheduler/cron.js';

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
    // The reference: the first whole second after `from` that the expression allows, written out
    // by hand for each expression.
    const allows: Record<string, (s: number, m: number, h: number) => boolean> = {
      '30 * * * * *': (s) => s === 30,
      '*/5 * * * *': (s, m) => s === 0 && m % 5 === 0,
      '17 3 * * *': (s, m, h) => s === 0 && m === 17 && h === 3,
      '*/20 5,40 */3 * * *': (s, m, h) => s % 20 === 0 && (m === 5 || m === 40) && h % 3 === 0,
      '0 0,30 22 * * *': (s, m, h) => s === 0 && (m === 0 || m === 30) && h === 22,
    };
    const walk = (expression: string, from: number) => {
      for (let t = Math.floor(from / 1000) * 1000 + 1000; ; t += 1000) {
        const d = new Date(t);
        if (allows[expression]?.(d.getUTCSeconds(), d.getUTCMinutes(), d.getUTCHours())) return t;
      }
    };
    const expressions = Object.keys(allows);
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
      'minute field "5/15": syntax error, stepping with numeric prefix (\'5/15\') is not allowed. Use wildcard (*/step) or range (min-max/step) instead.',
    );
    expect(cronProblem('1,,2 * * * *')).toBe(
      'minute field "1,,2": configuration entry minute () is empty, check for trailing spaces.',
    );
    expect(cronProblem('0 9 * * mo')).toBe('weekday field "mo": "mo" is not a number 0-7 or a name such as "sun"');
    expect(cronProblem('50-10 * * * *')).toBe(
      'minute field "50-10": range "50-10" runs backwards (write it from low to high)',
    );
    expect(cronProblem('0 0 30,31 2 *')).toBe(
      'day-of-month "30,31" never occurs in month "2", so the schedule never fires',
    );
  });
});
