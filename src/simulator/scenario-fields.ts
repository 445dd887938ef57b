import { z } from 'zod';
import { parseDuration } from '../duration.js';

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

/** A typo is one edit away (two for long names); `colour` is not a misspelling of `cloud`. */
function nearMiss(key: string, known: string[]): string | undefined {
  const lower = key.toLowerCase();
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase());
    const allowed = Math.min(key.length, candidate.length) >= 8 ? 2 : 1;
    if (distance === 0 || (Math.min(key.length, candidate.length) >= 4 && distance <= allowed)) return candidate;
  }
  return undefined;
}

/** Optimal string alignment distance: insertions, deletions, substitutions, transpositions. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => (rows[i] as number[])[j] as number;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
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

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

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
