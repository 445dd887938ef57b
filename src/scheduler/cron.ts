import { Cron } from 'croner';

/**
 * Cron expressions through croner, in UTC: five fields, or six with seconds first. Day-of-month
 * and weekday must both match when both are given (AND), `?` means any, and 7 is Sunday too.
 */
export function cronJob(expression: string, run?: (job: Cron) => void): Cron {
  // A job with a function starts paused: it runs once resumed. UTC as a fixed offset: croner
  // computes it by arithmetic, where a named time zone goes through Intl at every step.
  const options = { utcOffset: 0, mode: '5-or-6-parts', domAndDow: true, paused: true } as const;
  // croner knows three-letter names only; cron also allows the full ones.
  const pattern = expression.replace(FULL_NAMES, (name) => name.slice(0, 3));
  return run ? new Cron(pattern, options, run) : new Cron(pattern, options);
}

const FULL_NAMES =
  /\b(january|february|march|april|june|july|august|september|october|november|december|sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/gi;

/** Parsed once per expression: a replay asks for every job it fires. */
const parsed = new Map<string, Cron>();

/** The first whole second strictly after `afterMs` at which the expression fires. */
export function nextCronTime(expression: string, afterMs: number): number {
  const job = parsed.get(expression) ?? cronJob(expression);
  parsed.set(expression, job);
  // Built from the caller's clock, never the system's: the virtual scheduler asks in its own time.
  const next = job.nextRun(new Date(afterMs));
  if (!next) throw new Error(`cron expression "${expression}" never fires`);
  return next.getTime();
}

/** Typical spacing of a schedule, for freshness limits ("two of its intervals"). */
export function cronIntervalMs(expression: string, fromMs: number): number {
  const first = nextCronTime(expression, fromMs);
  return nextCronTime(expression, first) - first;
}

const FIELDS = [
  { name: 'second', min: 0, max: 59, size: 60 },
  { name: 'minute', min: 0, max: 59, size: 60 },
  { name: 'hour', min: 0, max: 23, size: 24 },
  { name: 'day-of-month', min: 1, max: 31, size: 31 },
  { name: 'month', min: 1, max: 12, size: 12, example: 'jan' },
  { name: 'weekday', min: 0, max: 7, size: 7, example: 'sun' },
] as const;
type Field = (typeof FIELDS)[number];

/**
 * What is wrong with a cron expression, naming the field, or undefined when it is fine. croner
 * parses each field alone (the others `*`) so that its refusal is pinned to one field; a step as
 * long as its field (croner takes `*\/60` to mean "once") and a schedule that never fires are
 * refused here as well.
 */
export function cronProblem(expression: string): string | undefined {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) {
    return `expected 5 fields (minute hour day-of-month month weekday, e.g. "*/5 * * * *") or 6 with seconds first, got ${fields.length}`;
  }
  for (const [i, field] of FIELDS.slice(6 - fields.length).entries()) {
    const text = fields[i] as string;
    const step = [...text.matchAll(/\/(\d+)/g)].map((match) => Number(match[1])).find((s) => s >= field.size);
    if (step !== undefined) {
      return `${field.name} field "${text}": step ${step} is not smaller than the ${field.name} range ${field.min}-${field.max}`;
    }
    try {
      cronJob(fields.map((other, j) => (j === i ? other : '*')).join(' '));
    } catch (error) {
      return `${field.name} field "${text}": ${reason(text, field, (error as Error).message)}`;
    }
  }
  if (cronJob(expression).nextRun(new Date(0)) === null) {
    return `day-of-month "${fields.at(-3)}" never occurs in month "${fields.at(-2)}", so the schedule never fires`;
  }
  return undefined;
}

/** croner's refusal of one field, in words that name the value and the field's range. */
function reason(text: string, field: Field, message: string): string {
  const backwards = /larger than to value: '([^']*)'/.exec(message);
  if (backwards) return `range "${backwards[1]}" runs backwards (write it from low to high)`;
  const values = text.split(',').flatMap((item) => (item.split('/')[0] as string).split('-'));
  const outside = values.find((v) => /^\d+$/.test(v) && (Number(v) < field.min || Number(v) > field.max));
  if (outside !== undefined) return `${Number(outside)} is outside the ${field.name} range ${field.min}-${field.max}`;
  if (/illegal characters/.test(message)) {
    const names = 'example' in field ? ` or a name such as "${field.example}"` : '';
    return `"${text}" is not a number ${field.min}-${field.max}${names}`;
  }
  return message.replace(/^CronPattern: (.)/, (_, first: string) => first.toLowerCase());
}
