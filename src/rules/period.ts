import type { BudgetConfig } from '../config/sections/budgets.js';
import { WEEKDAYS } from '../config/sections/budgets.js';
import { dateTimeFormat } from '../format.js';

/** A budget period: [startMs, endMs) in UTC milliseconds, and how people name it. */
export interface Period {
  startMs: number;
  endMs: number;
  label: string;
}

export type PeriodSpec = Pick<BudgetConfig, 'period' | 'timeZone' | 'weekStartsOn' | 'monthResetDay'>;

export interface LocalDate {
  year: number;
  /** 1 to 12. */
  month: number;
  day: number;
  /** 0 = Sunday. */
  weekday: number;
}

function formatter(timeZone: string): Intl.DateTimeFormat {
  return dateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    weekday: 'long',
  });
}

/** The wall-clock reading of `ms` in `timeZone`, as if that reading were UTC, and the local date. */
function wallClock(ms: number, timeZone: string): { asUtc: number; date: LocalDate } {
  if (timeZone === 'UTC') {
    // What the formatter reads in UTC, without it: the instant to the second, and its UTC date.
    const at = new Date(ms);
    const date = {
      year: at.getUTCFullYear(),
      month: at.getUTCMonth() + 1,
      day: at.getUTCDate(),
      weekday: at.getUTCDay(),
    };
    return { asUtc: Math.floor(ms / 1000) * 1000, date };
  }
  const parts: Record<string, string> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(ms))) parts[part.type] = part.value;
  const year = Number(parts.year);
  const month = Number(parts.month);
  const day = Number(parts.day);
  const asUtc = Date.UTC(year, month - 1, day, Number(parts.hour), Number(parts.minute), Number(parts.second));
  const weekday = WEEKDAYS.indexOf(String(parts.weekday).toLowerCase() as (typeof WEEKDAYS)[number]);
  return { asUtc, date: { year, month, day, weekday } };
}

/** The date the clocks of `timeZone` show at `ms` (weekday 0 = Sunday). */
export function localDate(ms: number, timeZone: string): LocalDate {
  return wallClock(ms, timeZone).date;
}

/**
 * The instant the clocks of `timeZone` show `minutes` after midnight of `year-month-day` (day
 * may overflow). A time a DST change skips comes out as the instant the clocks jump past it.
 */
export function localTime(year: number, month: number, day: number, minutes: number, timeZone: string): number {
  const guess = Date.UTC(year, month - 1, day, 0, minutes);
  return guess - offsetAt(guess - offsetAt(guess, timeZone), timeZone);
}

/** The hour (0–23) the clocks of `timeZone` show at `ms`. */
export function localHour(ms: number, timeZone: string): number {
  return new Date(wallClock(ms, timeZone).asUtc).getUTCHours();
}

/** How far `timeZone` is ahead of UTC at the instant `ms` (seconds dropped, as zones never use them). */
function offsetAt(ms: number, timeZone: string): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return wallClock(whole, timeZone).asUtc - whole;
}

/**
 * The instant local midnight begins `year-month-day` in `timeZone` (month may overflow: month 13
 * is January next year). Where a DST change skips midnight, the first instant of the day.
 */
export function localMidnight(year: number, month: number, day: number, timeZone: string): number {
  const guess = Date.UTC(year, month - 1, day);
  const first = guess - offsetAt(guess, timeZone);
  const second = guess - offsetAt(first, timeZone);
  // Of the two readings (before and after a change near midnight), the earliest on the right day.
  const target = new Date(guess).toISOString().slice(0, 10);
  const onDay = [first, second].filter((t) => {
    const { year: y, month: m, day: d } = wallClock(t, timeZone).date;
    return isoDate(y, m, d) === target;
  });
  return onDay.length > 0 ? Math.min(...onDay) : first;
}

function isoDate(year: number, month: number, day: number): string {
  return new Date(Date.UTC(year, month - 1, day)).toISOString().slice(0, 10);
}

/** The period of `spec` holding `now`. */
export function currentPeriod(spec: PeriodSpec, now: number): Period {
  const { year, month, day, weekday } = wallClock(now, spec.timeZone).date;
  const at = (y: number, m: number, d: number) => localMidnight(y, m, d, spec.timeZone);
  switch (spec.period) {
    case 'day':
      return { startMs: at(year, month, day), endMs: at(year, month, day + 1), label: isoDate(year, month, day) };
    case 'week': {
      const back = (weekday - WEEKDAYS.indexOf(spec.weekStartsOn) + 7) % 7;
      return {
        startMs: at(year, month, day - back),
        endMs: at(year, month, day - back + 7),
        label: `week of ${isoDate(year, month, day - back)}`,
      };
    }
    case 'month': {
      const reset = spec.monthResetDay;
      const startMonth = day >= reset ? month : month - 1;
      const label =
        reset === 1 ? isoDate(year, startMonth, 1).slice(0, 7) : `month from ${isoDate(year, startMonth, reset)}`;
      return { startMs: at(year, startMonth, reset), endMs: at(year, startMonth + 1, reset), label };
    }
  }
}
