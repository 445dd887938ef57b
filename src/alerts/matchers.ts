import type { SilenceMatcher } from '../db/schema.js';

/** A matcher that is not `name=value`, `name!=value`, `name=~regex` or `name!~regex`. */
export class MatcherError extends Error {
  constructor(text: string, reason: string) {
    super(`matcher "${text}": ${reason}`);
    this.name = 'MatcherError';
  }
}

const MATCHER = /^([A-Za-z_][A-Za-z0-9_]*)(=~|!~|!=|=)(.*)$/;

/** Parses a matcher as Alertmanager writes them; regexes match the whole value. */
export function parseMatcher(text: string): SilenceMatcher {
  const match = MATCHER.exec(text.trim());
  if (!match) throw new MatcherError(text, 'expected name=value, name!=value, name=~regex or name!~regex');
  const [, name, op, raw] = match as unknown as [string, string, SilenceMatcher['op'], string];
  const value = raw.replace(/^"(.*)"$/, '$1');
  if (op === '=~' || op === '!~') {
    try {
      new RegExp(`^(?:${value})$`);
    } catch (error) {
      throw new MatcherError(text, `invalid regular expression: ${(error as Error).message}`);
    }
  }
  return { name, op, value };
}

export function formatMatcher(matcher: SilenceMatcher): string {
  return `${matcher.name}${matcher.op}${matcher.value}`;
}

/**
 * Whether every matcher holds for a label set. An absent label reads as '' (as in Alertmanager),
 * and `key` matches the alert key itself.
 */
export function matchesAll(matchers: readonly SilenceMatcher[], labels: Readonly<Record<string, string>>): boolean {
  return matchers.every((matcher) => matchesOne(matcher, labels[matcher.name] ?? ''));
}

function matchesOne(matcher: SilenceMatcher, value: string): boolean {
  switch (matcher.op) {
    case '=':
      return value === matcher.value;
    case '!=':
      return value !== matcher.value;
    case '=~':
      return new RegExp(`^(?:${matcher.value})$`).test(value);
    case '!~':
      return !new RegExp(`^(?:${matcher.value})$`).test(value);
  }
}
