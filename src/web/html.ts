import { escapeHtml } from '../messages/html.js';

/**
 * HTML built with a tagged template that escapes every interpolated value unless it is already
 * markup made by this same tag. Escaping is then the default, not a call each template must
 * remember, which a plain template literal plus an escape function cannot promise; it needs no
 * dependency and no build step, so no template engine.
 */

/** Markup that is safe to insert as is: only `html` makes one. */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = SafeHtml | string | number | null | undefined | false | readonly Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** `html\`<b>${name}</b>\``: strings and numbers are escaped, arrays joined, null/false dropped. */
export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i] as Value) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}
