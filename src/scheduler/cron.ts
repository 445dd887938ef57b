import cron from 'node-cron';

/**
 * The next time at or after `afterMs` (exclusive) that a cron expression fires, in UTC. node-cron
 * schedules in real time only; the virtual-time loop needs to ask "when next?" of a clock that
 * is not the system's, so it reads node-cron's own parse of the expression and walks forward.
 */
export function nextCronTime(expression: string, afterMs: number): number {
  const allow = allowedValues(expression);
  const d = new Date(Math.floor(afterMs / 1000) * 1000 + 1000);
  for (let guard = 0; guard < 200_000; guard++) {
    if (!allow.month.has(d.getUTCMonth() + 1)) {
      d.setUTCMonth(d.getUTCMonth() + 1, 1);
      d.setUTCHours(0, 0, 0, 0);
    } else if (!allow.dayOfMonth.has(d.getUTCDate()) || !allow.dayOfWeek.has(d.getUTCDay())) {
      d.setUTCDate(d.getUTCDate() + 1);
      d.setUTCHours(0, 0, 0, 0);
    } else if (!allow.hour.has(d.getUTCHours())) {
      d.setUTCHours(d.getUTCHours() + 1, 0, 0, 0);
    } else if (!allow.minute.has(d.getUTCMinutes())) {
      d.setUTCMinutes(d.getUTCMinutes() + 1, 0, 0);
    } else if (!allow.second.has(d.getUTCSeconds())) {
      d.setUTCSeconds(d.getUTCSeconds() + 1, 0);
    } else {
      return d.getTime();
    }
  }
  throw new Error(`cron expression "${expression}" never fires`);
}

type Allowed = Record<'second' | 'minute' | 'hour' | 'dayOfMonth' | 'month' | 'dayOfWeek', Set<number>>;
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
  };
  parsed.set(expression, allow);
  return allow;
}

/** Typical spacing of a schedule, for freshness limits ("two of its intervals"). */
export function cronIntervalMs(expression: string, fromMs: number): number {
  const first = nextCronTime(expression, fromMs);
  return nextCronTime(expression, first) - first;
}
