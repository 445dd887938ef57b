import { RequestError } from './rest-reply.js';
import { RFC3339 } from './scenario-fields.js';

/**
 * Query parameters read the way the document declares them (types, enums, patterns, arrays
 * as comma lists: `style: form, explode: false`). Schema failures are collected and thrown
 * together by `done()` as one 422, like the API's validator; unknown parameters are ignored.
 */
export class QueryParams {
  private readonly failures: string[] = [];

  constructor(private readonly query: URLSearchParams) {}

  has(name: string): boolean {
    return this.query.has(name);
  }

  string(name: string): string | undefined {
    const values = this.query.getAll(name);
    return values.length === 0 ? undefined : values.join(',');
  }

  boolean(name: string): boolean | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    if (text === 'true' || text === 'false') return text === 'true';
    return this.fail(name, `expected boolean, got "${text}"`);
  }

  integer(name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    if (!/^-?\d+$/.test(text)) return this.fail(name, `expected integer, got "${text}"`);
    const value = Number(text);
    if (value < min) return this.fail(name, `expected number >= ${min}, got ${value}`);
    if (value > max) return this.fail(name, `expected number <= ${max}, got ${value}`);
    return value;
  }

  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    if ((values as readonly string[]).includes(text)) return text as T;
    return this.fail(name, `value must be one of ${values.map((value) => `'${value}'`).join(', ')}`);
  }

  pattern(name: string, pattern: RegExp): string | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    return pattern.test(text) ? text : this.fail(name, `"${text}" does not match ${pattern.source}`);
  }

  /** A comma-separated list whose items are enum values or match a pattern. */
  list<T extends string>(name: string, items: readonly T[] | RegExp, maxItems?: number): T[] | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    const values = text.split(',').map((value) => value.trim());
    if (maxItems !== undefined && values.length > maxItems) {
      return this.fail(name, `expected at most ${maxItems} item(s), got ${values.length}`);
    }
    values.forEach((value, index) => {
      const valid = Array.isArray(items) ? items.includes(value) : (items as RegExp).test(value);
      if (!valid) {
        const expected = Array.isArray(items)
          ? `one of ${items.map((item) => `'${item}'`).join(', ')}`
          : `a match of ${(items as RegExp).source}`;
        this.fail(`${name}[${index}]`, `"${value}" is not ${expected}`);
      }
    });
    return values as T[];
  }

  /** An RFC 3339 time as epoch milliseconds. */
  dateTime(name: string): number | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    const ms = Date.parse(text);
    if (!RFC3339.test(text) || Number.isNaN(ms))
      return this.fail(name, `expected an RFC 3339 date-time, got "${text}"`);
    return ms;
  }

  /** Throws the collected schema failures as one 422. */
  done(): void {
    if (this.failures.length > 0) throw new RequestError(422, 'Request validation failed.', this.failures);
  }

  private fail(name: string, message: string): undefined {
    this.failures.push(`query.${name}: ${message}`);
    return undefined;
  }
}
