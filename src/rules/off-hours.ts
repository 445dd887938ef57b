import { WEEKDAYS } from '../config/sections/budgets.js';
import type { ScheduleConfig } from '../config/sections/enforce.js';
import { minuteOfDay } from '../config/sections/idle.js';
import { localDate, localTime } from './period.js';

/** One off-hours window: [start, end) in epoch ms. */
export interface Window {
  start: number;
  end: number;
}

/** How many days around `now` windows are looked for: a chain of windows a week long is still one, start to end. */
const DAYS_AROUND = 8;
const NOON = 12 * 60;

/**
 * The off-hours windows of a schedule around `now`: each entry gives one window per listed day,
 * starting on that day at `from` and ending at `to` (the next day when `to` is not after `from`),
 * on the clocks of the schedule's zone; windows that touch or overlap are one. Sorted by start.
 */
export function windowsAround(schedule: Pick<ScheduleConfig, 'timeZone' | 'offHours'>, now: number): Window[] {
  const zone = schedule.timeZone;
  const spans: Window[] = [];
  const today = localDate(now, zone);
  for (let back = -DAYS_AROUND; back <= DAYS_AROUND; back++) {
    // By calendar day, not by 24 h: a day of a DST change is 23 or 25 hours long.
    const noon = localTime(today.year, today.month, today.day + back, NOON, zone);
    const { year, month, day } = localDate(noon, zone);
    const weekday = WEEKDAYS[localDate(noon, zone).weekday];
    for (const entry of schedule.offHours) {
      if (!weekday || !entry.days.includes(weekday)) continue;
      const from = minuteOfDay(entry.from);
      const to = minuteOfDay(entry.to);
      const start = localTime(year, month, day, from, zone);
      const end = localTime(year, month, to > from ? day : day + 1, to, zone);
      spans.push({ start, end });
    }
  }
  spans.sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: Window[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

/** The window holding `now`, else the next one starting within `leadMs`; undefined when neither. */
export function windowNear(
  schedule: Pick<ScheduleConfig, 'timeZone' | 'offHours'>,
  now: number,
  leadMs: number,
): Window | undefined {
  return windowsAround(schedule, now).find((window) => window.end > now && window.start <= now + leadMs);
}
