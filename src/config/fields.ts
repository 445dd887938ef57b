import { z } from 'zod';
import { parseDuration } from '../duration.js';
import { cronProblem } from '../scheduler/cron.js';
import { typeName } from './issues.js';

/** What parsing needs besides the data: relative paths (database, secret files) resolve against `baseDir`. */
export interface ParseContext {
  baseDir: string;
}

/**
 * A duration written like `90s`, `30m`, `1h30m`; comes out as milliseconds (> 0). The object
 * holding it renames the key `<key>Ms` (see `withMs`), so the unit is in the name.
 */
export const duration = () => durationField(false);

/** Like `duration()`, but `0s` is allowed (comes out as 0): "no wait at all". */
export const durationOrZero = () => durationField(true);

function durationField(allowZero: boolean) {
  return z
    .string({
      error: (issue) =>
        issue.input === undefined ? 'required' : `expected a duration such as "30s", got ${typeName(issue.input)}`,
    })
    .transform((text, ctx) => {
      let ms: number;
      try {
        ms = parseDuration(text);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message, input: text });
        return z.NEVER;
      }
      if (ms <= 0 && !allowZero) {
        ctx.addIssue({ code: 'custom', message: `duration must be greater than 0, got "${text}"`, input: text });
        return z.NEVER;
      }
      return ms;
    });
}

/** An IANA time zone name such as `Europe/Paris`. */
export function timeZone() {
  return z.string().refine(
    (name) => {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: name });
        return true;
      } catch {
        return false;
      }
    },
    { error: (issue) => `unknown time zone "${String(issue.input)}" (expected e.g. Europe/Paris)` },
  );
}

/** A cron expression: five fields, or six with seconds first; the error names the cron field. */
export function cronSchedule() {
  return z.string().superRefine((text, ctx) => {
    const problem = cronProblem(text);
    if (problem)
      ctx.addIssue({ code: 'custom', message: `invalid cron expression "${text}": ${problem}`, input: text });
  });
}

/** An http(s) base URL, without its trailing slash so paths can be appended. */
export function httpUrl() {
  return z
    .string()
    .refine(isHttpUrl, {
      error: (issue) => `invalid URL "${String(issue.input)}" (expected an http:// or https:// URL)`,
    })
    .transform((text) => text.replace(/\/+$/, ''));
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** `{ backfill: 30d }` → `{ backfillMs: 2592000000 }` for the listed keys. */
export type WithMs<T, K extends string> = { [P in keyof T as P extends K ? `${P}Ms` : P]: T[P] };

/**
 * A strict object (unknown fields are errors) whose listed duration fields come out renamed
 * `<key>Ms`. Key order is kept, so the effective configuration prints in the order written.
 */
export function withMs<Shape extends z.ZodRawShape, K extends keyof Shape & string>(
  shape: Shape,
  durationKeys: readonly K[],
) {
  const renamed = new Set<string>(durationKeys);
  return z
    .strictObject(shape)
    .transform(
      (value) =>
        Object.fromEntries(
          Object.entries(value).map(([key, item]) => [renamed.has(key) ? `${key}Ms` : key, item]),
        ) as WithMs<z.output<z.ZodObject<Shape, z.core.$strict>>, K>,
    );
}

/**
 * A list check: every item whose `name` an earlier item already has is reported at
 * `[index, 'name']`, in words `describe` gives from the name and the earlier item's index.
 */
export function uniqueNames(describe: (name: string, first: number) => string) {
  return (items: readonly unknown[], ctx: z.RefinementCtx): void => {
    const firstIndex = new Map<string, number>();
    items.forEach((item, index) => {
      const name = (item as { name?: unknown } | null)?.name;
      if (typeof name !== 'string') return;
      const first = firstIndex.get(name);
      if (first === undefined) firstIndex.set(name, index);
      else ctx.addIssue({ code: 'custom', path: [index, 'name'], message: describe(name, first) });
    });
  };
}
