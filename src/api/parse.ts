import { z } from 'zod';
import { formatPath } from '../format.js';
import { ApiError } from './errors.js';

const MAX_ISSUES = 3;

/**
 * Parses a decoded response body, or a part of one found at `at` (a billing answer's metadata);
 * a mismatch is a `contract` error naming the route and the field path in the whole body, e.g.
 * `GET /pods: response body pods[3].cost: expected number, received string`.
 */
export function parseBody<S extends z.ZodType>(
  schema: S,
  value: unknown,
  op: string,
  at: ReadonlyArray<PropertyKey> = [],
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const body = at.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
  const message = describeIssues(result.error.issues, at, body);
  throw new ApiError({ kind: 'contract', op, message, bodySnippet: JSON.stringify(value) ?? '' });
}

/** A list item the schema rejected: where it was, its id when readable, and why. */
export interface RejectedItem {
  index: number;
  /** The item's id (idOf) when it is a string, so the rest of the daemon can tell which one it was. */
  id: string | null;
  /** The field paths and what was wrong, e.g. `response body pods[3].cost: expected number, received string`. */
  reason: string;
  /** The item as decoded, for a caller that must tell where it belonged (a billing record's bucket). */
  raw: unknown;
}

/** Reads an item's id: its `id` field, or another (a billing record's podId). */
export type IdOf = (raw: Record<string, unknown>) => unknown;

const idField: IdOf = (raw) => raw.id;

export interface ParsedList<T> {
  items: T[];
  rejected: RejectedItem[];
}

/**
 * Parses `body[key]` item by item, so one record we cannot read does not hide all the others.
 * The envelope itself (not an object, `key` not an array) is still a contract error.
 */
export function parseItems<S extends z.ZodType>(
  item: S,
  key: string,
  body: unknown,
  op: string,
  idOf: IdOf = idField,
): ParsedList<z.output<S>> {
  // One envelope schema per key, kept: zod compiles a schema on its first parse.
  if (!envelopes.has(key)) envelopes.set(key, z.looseObject({ [key]: z.array(z.unknown()) }));
  const envelope = parseBody(envelopes.get(key) as z.ZodType<Record<string, unknown>>, body, op);
  return parseEach(item, key, envelope[key] as unknown[], idOf);
}

const envelopes = new Map<string, z.ZodType<Record<string, unknown>>>();

/**
 * Parses each item of a list already found at `key` (a path such as `data.gpuTypes` names it in
 * errors: `data.gpuTypes[3].secure…`): the items read, and the rejected ones named.
 */
export function parseEach<S extends z.ZodType>(
  item: S,
  key: string,
  list: readonly unknown[],
  idOf: IdOf = idField,
): ParsedList<z.output<S>> {
  const parsed: ParsedList<z.output<S>> = { items: [], rejected: [] };
  list.forEach((raw, index) => {
    const result = item.safeParse(raw);
    if (result.success) {
      parsed.items.push(result.data);
      return;
    }
    const reason = describeIssues(result.error.issues, [key, index], { [key]: { [index]: raw } });
    const id = raw !== null && typeof raw === 'object' ? idOf(raw as Record<string, unknown>) : undefined;
    parsed.rejected.push({ index, id: typeof id === 'string' ? id : null, reason, raw });
  });
  return parsed;
}

/** The first few issues, their paths put under `at` in `body`, and how many more there were. */
function describeIssues(issues: z.core.$ZodIssue[], at: ReadonlyArray<PropertyKey>, body: unknown): string {
  const described = issues
    .slice(0, MAX_ISSUES)
    .map((issue) => describeIssue({ ...issue, path: [...at, ...issue.path] }, body));
  const more = issues.length > MAX_ISSUES ? ` (and ${issues.length - MAX_ISSUES} more)` : '';
  return `${described.join('; ')}${more}`;
}

function describeIssue(issue: z.core.$ZodIssue, body: unknown): string {
  const where = ['response body', formatPath(issue.path)].filter(Boolean).join(' ');
  let message = issue.message.replace(/^Invalid input: /, '');
  if (issue.code === 'invalid_type' && message.endsWith('received undefined')) {
    message = `missing, expected ${issue.expected}`;
  } else if (issue.code === 'invalid_value') {
    message = `${message.replace(/^Invalid option: /, '')}, received ${preview(valueAt(body, issue.path))}`;
  } else if (issue.code === 'invalid_format') {
    message = `expected ${issue.format === 'datetime' ? 'an RFC 3339 date-time' : issue.format}, received ${preview(valueAt(body, issue.path))}`;
  }
  return `${where}: ${message}`;
}

function valueAt(body: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let current: unknown = body;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
