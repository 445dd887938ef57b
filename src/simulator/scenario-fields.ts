import { z } from 'zod';
import { parseDuration } from '../duration.js';
import { nearMiss } from '../near-miss.js';

/**
 * Building blocks of the scenario schema. Objects accept unknown fields (SCENARIO.md: "Add
 * fields freely") but a field that looks like a misspelling of a known one is an error, so
 * `utilisation:` or `nmae:` cannot silently vanish.
 */
export function fields<Shape extends z.ZodRawShape>(shape: Shape) {
  const known = Object.keys(shape);
  return z.looseObject(shape).superRefine(
    (value, ctx) => {
      for (const key of Object.keys(value)) {
        if (known.includes(key)) continue;
        const meant = nearMiss(key, known);
        if (meant !== undefined) {
          ctx.addIssue({ code: 'custom', path: [key], message: `unknown field "${key}" (did you mean "${meant}"?)` });
        }
      }
    },
    // Run even when a required field is missing: that is exactly when the hint matters.
    { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
  );
}

/** An offset from `start`: `90s`, `-2d`, `1h30m` (0 is accepted as a number too). */
export const offset = z.unknown().transform((value, ctx): number => {
  if (value === 0) return 0;
  if (typeof value !== 'string') {
    const message =
      value === undefined
        ? 'required: a duration such as "90s", "6h" or "-2d"'
        : `expected a duration such as "90s", "6h" or "-2d", got ${JSON.stringify(value)}`;
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  }
  try {
    return parseDuration(value);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

/** A positive duration (a length of time rather than an offset). */
export const positiveDuration = offset.refine((ms) => ms > 0, 'must be a positive duration');

export const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** An absolute RFC 3339 time, as epoch milliseconds. */
export const timestamp = z.unknown().transform((value, ctx): number => {
  const text = value instanceof Date ? value.toISOString() : value;
  if (typeof text !== 'string' || !RFC3339.test(text) || Number.isNaN(Date.parse(text))) {
    const got = text === undefined ? 'required' : `got ${JSON.stringify(text)}`;
    ctx.addIssue({ code: 'custom', message: `expected an RFC 3339 time such as "2026-11-02T00:00:00Z" (${got})` });
    return z.NEVER;
  }
  return Date.parse(text);
});

export const percent = z.number().int().min(0).max(100);
export const nonNegative = z.number().min(0);
export const identifier = z.string().min(1);
