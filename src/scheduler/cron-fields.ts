import cron from 'node-cron';

/**
 * What is wrong with a cron expression, field by field, or undefined when it is fine. node-cron's
 * own check says only valid/invalid, accepts steps larger than their field (`*\/61` in minutes
 * fires once an hour) and reversed ranges, so each field is checked here against its range first;
 * node-cron's parse stays the last word, so nothing passes here that the scheduler would refuse.
 */
export function cronProblem(expression: string): string | undefined {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) {
    return `expected 5 fields (minute hour day-of-month month weekday, e.g. "*/5 * * * *") or 6 with seconds first, got ${fields.length}`;
  }
  const specs = fields.length === 6 ? FIELDS : FIELDS.slice(1);
  const values: number[][] = [];
  for (const [i, spec] of specs.entries()) {
    const text = fields[i] as string;
    const field = parseField(text, spec);
    if (typeof field === 'string') return `${spec.name} field "${text}": ${field}`;
    values.push(field);
  }
  const [days, months] = [values[values.length - 3] as number[], values[values.length - 2] as number[]];
  if (!months.some((month) => days.some((day) => day <= (DAYS_IN_MONTH[month - 1] as number)))) {
    const dayText = fields[fields.length - 3];
    const monthText = fields[fields.length - 2];
    return `day-of-month "${dayText}" never occurs in month "${monthText}", so the schedule never fires`;
  }
  try {
    cron.parse(expression);
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
}

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  /** Lowercase names (3-letter and full), numbered from `min`. */
  names?: readonly string[];
  /** `?` stands for "any" in the day fields, as in Quartz and node-cron. */
  question?: boolean;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const WEEKDAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
/** February may have 29 days: "0 0 29 2 *" fires in leap years. */
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const FIELDS: readonly FieldSpec[] = [
  { name: 'second', min: 0, max: 59 },
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31, question: true },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  // 7 is Sunday as well as 0, as in every cron.
  { name: 'weekday', min: 0, max: 7, names: WEEKDAYS, question: true },
];

/** The values a field allows (weekday 7 folded onto 0), or what is wrong with it. */
function parseField(text: string, spec: FieldSpec): number[] | string {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    if (part === '') return 'empty item in a list';
    const [range, stepText, extra] = part.split('/');
    if (extra !== undefined) return `"${part}" has more than one "/"`;
    let from = spec.min;
    let to = spec.max;
    if (range === '*' || (range === '?' && spec.question)) {
      // the whole range
    } else {
      const bounds = (range as string).split('-');
      if (bounds.length > 2) return `"${range}" is not a value or a range`;
      const first = fieldValue(bounds[0] as string, spec);
      if (typeof first === 'string') return first;
      from = first;
      to = first;
      if (bounds.length === 2) {
        const last = fieldValue(bounds[1] as string, spec);
        if (typeof last === 'string') return last;
        if (last < first) return `range "${range}" runs backwards (write it from low to high)`;
        to = last;
      } else if (stepText !== undefined) {
        return `step "/${stepText}" needs a range or "*" before it (e.g. "*/${stepText}")`;
      }
    }
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) < 1) return `step "${stepText}" is not a whole number from 1`;
      step = Number(stepText);
      const span = spec.max - spec.min + (spec.name === 'weekday' ? 0 : 1);
      if (step >= span) return `step ${step} is not smaller than the ${spec.name} range ${spec.min}-${spec.max}`;
    }
    for (let v = from; v <= to; v += step) out.add(spec.name === 'weekday' && v === 7 ? 0 : v);
  }
  return [...out];
}

function fieldValue(text: string, spec: FieldSpec): number | string {
  if (/^\d+$/.test(text)) {
    const value = Number(text);
    if (value < spec.min || value > spec.max) {
      return `${value} is outside the ${spec.name} range ${spec.min}-${spec.max}`;
    }
    return value;
  }
  const lower = text.toLowerCase();
  const full = spec.names === MONTHS ? MONTH_NAMES : spec.names === WEEKDAYS ? WEEKDAY_NAMES : undefined;
  const index = spec.names ? Math.max(spec.names.indexOf(lower), full?.indexOf(lower) ?? -1) : -1;
  if (index >= 0) return spec.min + index;
  const expected = spec.names
    ? `a number ${spec.min}-${spec.max} or a name such as "${spec.names[0]}"`
    : `a number ${spec.min}-${spec.max}`;
  return `"${text}" is not ${expected}`;
}
