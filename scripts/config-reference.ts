import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { configSchema } from '../src/config/schema.js';
import { packagePath } from '../src/package-root.js';

/**
 * The JSON Schema of the configuration file and its reference page, both made from the zod
 * schema (src/config/schema.ts), so neither can say something the parser does not do. The words
 * are the commented example's (config/podwarden.example.yaml), read from the comment above each
 * option, so the file people copy from and the reference say the same; an option the example
 * does not comment on says what its zod field's `.describe()` says. `npm run config:schema` writes both; test/config/json-schema.test.ts fails
 * when either is not what this makes.
 */

export const SCHEMA_FILE = 'config/podwarden.schema.json';
export const REFERENCE_FILE = 'docs/configuration.md';
const EXAMPLE_FILE = 'config/podwarden.example.yaml';

type JsonSchema = {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  additionalProperties?: boolean | JsonSchema;
  [key: string]: unknown;
};

/** One option of the file: where it is (`budgets[].amount`), and its schema. */
interface Option {
  path: string;
  schema: JsonSchema;
  required: boolean;
}

/** The configuration as the file is written (input side: durations as strings, secrets and their `File` twins). */
export function configJsonSchema(exampleText = readFileSync(packagePath(EXAMPLE_FILE), 'utf8')): JsonSchema {
  // baseDir only anchors relative paths while parsing; the schema's shape does not depend on it.
  const schema = z.toJSONSchema(configSchema({ baseDir: '.' }), {
    io: 'input',
    target: 'draft-2020-12',
    // Refinements (cron, durations, URLs) have no JSON Schema form: the type is kept, the check stays zod's.
    unrepresentable: 'any',
  }) as JsonSchema;
  const words = exampleDescriptions(exampleText);
  for (const option of optionsOf(schema)) {
    const text = words.get(option.path);
    if (text !== undefined) option.schema.description = text;
  }
  return {
    $schema: schema.$schema,
    $id: 'https://github.com/podwarden/podwarden/config/podwarden.schema.json',
    title: 'podwarden configuration',
    description: 'The configuration file of podwarden (podwarden.yaml). Reference: docs/configuration.md.',
    ...Object.fromEntries(Object.entries(schema).filter(([key]) => key !== '$schema')),
  };
}

/** The file as written: stable key order, two spaces, a final newline. */
export function jsonSchemaText(schema: JsonSchema = configJsonSchema()): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

/** Every option, depth first in schema order; list items are `[]`, an option's alternatives merged. */
export function optionsOf(schema: JsonSchema): Option[] {
  const out: Option[] = [];
  const walk = (node: JsonSchema, path: string) => {
    for (const alternative of node.anyOf ?? node.oneOf ?? []) walk(alternative, path);
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const at = path === '' ? key : `${path}.${key}`;
      out.push({ path: at, schema: child, required: node.required?.includes(key) ?? false });
      walk(child, at);
    }
    if (node.items !== undefined) walk(node.items, `${path}[]`);
  };
  walk(schema, '');
  return out;
}

/**
 * The comment block right above each option of the example, by path, options shown commented
 * out (`# key: value`) included. A comment line is an option when its key exists at that place;
 * any other comment line is prose for the next option at its indentation (a comment indented
 * deeper closes the section above, `# Add an entry per further account`). A blank line ends a block.
 */
export function exampleDescriptions(text: string): Map<string, string> {
  const words = new Map<string, string>();
  const stack: Array<{ indent: number; segment: string }> = [];
  let prose: Array<{ indent: number; text: string }> = [];
  const pathOf = () =>
    stack
      .map((entry) => entry.segment)
      .join('.')
      .replace(/\.\[\]/g, '[]');
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      prose = [];
      continue;
    }
    const indent = line.length - line.trimStart().length;
    const commented = /^#\s?(.*)$/.exec(line.trimStart());
    const body = commented ? (commented[1] as string) : line.trimStart();
    const key = /^(- )?([A-Za-z][A-Za-z0-9]*):(\s|$)/.exec(body);
    if (key === null) {
      if (commented) prose.push({ indent, text: body.trim() });
      continue;
    }
    const item = key[1] !== undefined;
    const candidate = [...stack];
    while (candidate.length > 0 && (candidate.at(-1)?.indent ?? -1) >= indent) candidate.pop();
    if (item) candidate.push({ indent, segment: '[]' });
    const keyIndent = item ? indent + 2 : indent;
    const path = [...candidate.map((entry) => entry.segment), key[2] as string].join('.').replace(/\.\[\]/g, '[]');
    // Prose that happens to start like `Word:` is not an option unless it names one here.
    if (commented && !KNOWN.has(path)) {
      prose.push({ indent, text: body.trim() });
      continue;
    }
    stack.splice(0, stack.length, ...candidate, { indent: keyIndent, segment: key[2] as string });
    const own = prose.slice(prose.findLastIndex((line) => line.indent !== indent) + 1);
    if (own.length > 0 && !words.has(pathOf())) words.set(pathOf(), own.map((line) => line.text).join(' '));
    prose = [];
  }
  return words;
}

const KNOWN = new Set(
  optionsOf(z.toJSONSchema(configSchema({ baseDir: '.' }), { io: 'input', unrepresentable: 'any' }) as JsonSchema).map(
    (option) => option.path,
  ),
);

/** `string`, `integer`, `list of string`, `one of: a, b`, alternatives joined by ` or `. */
function typeOf(schema: JsonSchema): string {
  if (schema.enum !== undefined) return `one of: ${schema.enum.map((value) => `\`${String(value)}\``).join(', ')}`;
  if (schema.const !== undefined) return `\`${String(schema.const)}\``;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives !== undefined) return [...new Set(alternatives.map(typeOf))].join(' or ');
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : schema.type;
  if (type === 'array') return `list of ${schema.items ? typeOf(schema.items) : 'anything'}`;
  if (type === 'object') return schema.properties ? 'mapping' : 'mapping of names to values';
  return type ?? 'any';
}

/** The reference page: every option with its type, default and description, section by section. */
export function referenceMarkdown(schema: JsonSchema = configJsonSchema()): string {
  const lines = [
    '# Configuration reference',
    '',
    '<!-- Generated from the zod schema (src/config/schema.ts) and the comments of',
    '     config/podwarden.example.yaml by `npm run config:schema`; edit those, not this page. -->',
    '',
    'Every option of the configuration file, by path: `accounts[].name` is the `name` of each',
    'entry of the `accounts` list. Only `accounts` is required; everything else has the default',
    'shown or, without one, is off until set. Durations are strings (`90s`, `1h30m`, `14d`);',
    'schedules are cron expressions in UTC. `config/podwarden.example.yaml` is the same options',
    'as a commented file to start from, and `config/podwarden.schema.json` the JSON Schema that',
    'editors complete and check against. `podwarden check-config --config FILE` checks a file.',
    '',
  ];
  for (const option of optionsOf(schema)) {
    const depth = option.path.split('.').length;
    if (depth === 1) lines.push('', `## \`${option.path}\``, '');
    const facts = [typeOf(option.schema)];
    if (option.required) facts.push('required');
    if (option.schema.default !== undefined) facts.push(`default \`${JSON.stringify(option.schema.default)}\``);
    const description = option.schema.description ?? '';
    lines.push(`- **\`${option.path}\`** (${facts.join('; ')})${description === '' ? '' : `: ${description}`}`);
    if (depth === 1) lines.push('');
  }
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n')}\n`;
}
