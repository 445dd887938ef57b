import type { z } from 'zod';
import { formatPath, type Problem } from './errors.js';

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean (true or false)',
  object: 'a mapping',
  array: 'a list',
};

/** How a YAML value reads to its author: `string`, `number`, `list`, `mapping`, `null`. */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'object') return 'mapping';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return typeof value;
}

function shown(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : typeName(value);
}

/**
 * The messages of every issue zod raises while parsing a configuration, in one place so they
 * stay short and stable (`required`, `expected a number, got string`). Schema-level messages
 * (durations, cron, URLs, secrets) take precedence over these.
 */
export function describeIssue(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'required';
      if (issue.expected === 'int' && typeof issue.input === 'number') return `expected an integer, got ${issue.input}`;
      return `expected ${EXPECTED[issue.expected] ?? issue.expected}, got ${typeName(issue.input)}`;
    case 'too_small':
      if (issue.origin === 'number') {
        return issue.inclusive ? `must be at least ${issue.minimum}` : `must be greater than ${issue.minimum}`;
      }
      return Number(issue.minimum) <= 1 ? 'must not be empty' : `must have at least ${issue.minimum} items`;
    case 'too_big':
      if (issue.origin === 'number') {
        return issue.inclusive ? `must be at most ${issue.maximum}` : `must be less than ${issue.maximum}`;
      }
      return `must have at most ${issue.maximum} items`;
    case 'invalid_value':
      return `expected one of ${issue.values.map(String).join(', ')}, got ${shown(issue.input)}`;
    case 'unrecognized_keys':
      return 'unknown field';
    default:
      return undefined;
  }
}

/** zod issues → problems; an unknown-fields issue becomes one problem per field, at its own path. */
export function problemsFromIssues(issues: ReadonlyArray<z.core.$ZodIssue>): Problem[] {
  return issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: formatPath([...issue.path, key]), message: 'unknown field' }))
      : [{ path: formatPath(issue.path), message: issue.message }],
  );
}
