import cron from 'node-cron';

/**
 * The next time at or after `afterMs` (exclusive) that a cron expression fires, in UTC. node-cron
 * schedules in real time only; the virtual-time loop needs to ask "when next?" of a clock that
 * is not the system's, so it reads node-cron's own parse of the expression and walks forward.
 */
export function nextCronTime(expression: string, afterMs: number): number {
  const from = Math.floor(afterMs / 1000) * 1000 + 1000;
  // Jobs that share a schedule fire together and each asks the same question in the same second.
  const last = lastAnswers.get(expression);
  if (last !== undefined && last.from === from) return last.next;
  const next = walkForward(expression, from);
  lastAnswers.set(expression, { from, next });
  return next;
}

const lastAnswers = new Map<string, { from: number; next: number }>();

function walkForward(expression: string, from: number): number {
  const allow = allowedValues(expression);
  const d = new Date(from);
  for (let guard = 0; guard < 200_000; guard++) {
    if (!allow.month.has(d.getUTCMonth() + 1)) {
      d.setUTCMonth(d.getUTCMonth() + 1, 1);
      d.setUTCHours(0, 0, 0, 0);
    } else if (!allow.dayOfMonth.has(d.getUTCDate()) || !allow.dayOfWeek.has(d.getUTCDay())) {
      d.setUTCDate(d.getUTCDate() + 1);
      d.setUTCHours(0, 0, 0, 0);
    } else if (!allow.hour.has(d.getUTCHours())) {
      const hour = nextAllowed(allow.hours, d.getUTCHours());
      if (hour === undefined) d.setUTCDate(d.getUTCDate() + 1);
      d.setUTCHours(hour ?? 0, 0, 0, 0);
    } else if (!allow.minute.has(d.getUTCMinutes())) {
      // Straight to the next allowed minute (or the next hour): a replay asks this for every job
      // it fires, and walking a minute or a second at a time was most of the loop's own cost.
      const minute = nextAllowed(allow.minutes, d.getUTCMinutes());
      d.setUTCMinutes(minute ?? 60, 0, 0);
    } else if (!allow.second.has(d.getUTCSeconds())) {
      const second = nextAllowed(allow.seconds, d.getUTCSeconds());
      d.setUTCSeconds(second ?? 60, 0);
    } else {
      return d.getTime();
    }
  }
  throw new Error(`cron expression "${expression}" never fires`);
}

/** The smallest of the ascending `values` above `after`, or undefined. */
function nextAllowed(values: readonly number[], after: number): number | undefined {
  for (const value of values) if (value > after) return value;
  return undefined;
}

type Allowed = Record<'second' | 'minute' | 'hour' | 'dayOfMonth' | 'month' | 'dayOfWeek', Set<number>> &
  Record<'seconds' | 'minutes' | 'hours', number[]>;
const parsed = new Map<string, Allowed>();

/** node-cron's parse of an expression as sets, parsed once per expression (a replay asks often). */
function allowedValues(expression: string): Allowed {
  const cached = parsed.get(expression);
  if (cached) return cached;
  const fields = cron.parse(expression);
  const allow: Allowed = {
    second: new Set(fields.second),
    minute: new Set(fields.minute),
    hour: new Set(fields.hour),
    dayOfMonth: new Set(fields.dayOfMonth.map(Number)),
    month: new Set(fields.month),
    dayOfWeek: new Set(fields.dayOfWeek.map(Number)),
    seconds: ascending(fields.second),
    minutes: ascending(fields.minute),
    hours: ascending(fields.hour),
  };
  parsed.set(expression, allow);
  return allow;
}

function ascending(values: ReadonlyArray<number | string>): number[] {
  return [...new Set(values.map(Number))].sort((a, b) => a - b);
}

/** Typical spacing of a schedule, for freshness limits ("two of its intervals"). */
export function cronIntervalMs(expression: string, fromMs: number): number {
  const first = nextCronTime(expression, fromMs);
  return nextCronTime(expression, first) - first;
}
