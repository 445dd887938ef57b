import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig, parseConfig } from '../../src/config/load.js';
import { configSchema } from '../../src/config/schema.js';
import { packagePath } from '../../src/package-root.js';

const EXAMPLE = packagePath('config/podwarden.example.yaml');
const env = { RUNPOD_API_KEY: 'rpa_example_key_0001' };

/**
 * The option paths the example documents: keys set in it and keys shown commented out as
 * `# key: value`, placed by indentation (`accounts[].apiKeyFile`, `api.timeouts.connect`).
 */
function documentedPaths(text: string): Set<string> {
  const paths = new Set<string>();
  const stack: Array<{ column: number; path: string }> = [];
  for (const line of text.split('\n')) {
    const match = /^( *)(# )?(- )?([A-Za-z][A-Za-z0-9]*):(?: +(\S)|$)/.exec(line);
    if (!match || (match[2] && !match[5])) continue;
    const indent = match[1]?.length ?? 0;
    const popTo = (column: number) => {
      while (stack.length > 0 && (stack.at(-1)?.column ?? 0) >= column) stack.pop();
    };
    popTo(indent);
    if (match[3]) stack.push({ column: indent, path: `${stack.at(-1)?.path ?? ''}[]` });
    const column = match[3] ? indent + 2 : indent;
    const parent = stack.at(-1)?.path;
    const path = parent ? `${parent}.${match[4]}` : (match[4] as string);
    paths.add(path);
    stack.push({ column, path });
  }
  return new Set([...paths].map((path) => path.replace(/\.\[\]/g, '[]')));
}

/** Every option path the schema accepts, read from its JSON Schema (input side). */
function schemaPaths(): Set<string> {
  const paths = new Set<string>();
  type Node = { properties?: Record<string, Node>; items?: Node };
  const walk = (node: Node, prefix: string) => {
    if (node.items) walk(node.items, `${prefix}[]`);
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const path = prefix ? `${prefix}.${key}` : key;
      paths.add(path);
      walk(child, path);
    }
  };
  walk(z.toJSONSchema(configSchema({ baseDir: '/' }), { io: 'input', unrepresentable: 'any' }) as Node, '');
  return paths;
}

describe('config/podwarden.example.yaml', () => {
  it('is a valid configuration once RUNPOD_API_KEY is set', () => {
    const config = loadConfig({ path: EXAMPLE, env });
    expect(config.accounts.map((account) => [account.name, account.apiKey])).toEqual([
      ['main', 'rpa_example_key_0001'],
    ]);
  });

  it('shows the default of every option it sets', () => {
    const minimal = { accounts: [{ name: 'main', apiKey: 'rpa_example_key_0001' }] };
    expect(loadConfig({ path: EXAMPLE, env })).toEqual(parseConfig(minimal, { env: {}, baseDir: dirname(EXAMPLE) }));
  });

  it('documents every option of the schema, and nothing the schema lacks', () => {
    const documented = documentedPaths(readFileSync(EXAMPLE, 'utf8'));
    const accepted = schemaPaths();
    expect(documented.has('accounts[].apiKeyFile')).toBe(true);
    expect(documented.has('http.bearerTokenFile')).toBe(true);
    expect([...documented].filter((path) => !accepted.has(path))).toEqual([]);
    expect([...accepted].filter((path) => !documented.has(path))).toEqual([]);
  });
});
