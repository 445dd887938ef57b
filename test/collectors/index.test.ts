import { readdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COLLECTOR_NAMES, type Collector } from '../../src/collectors/collector.js';
import { collectors, collectorsFeeding } from '../../src/collectors/index.js';
import { defaultConfig } from '../../src/config/load.js';
import { alerts, billingRecords, gpuStock, pods } from '../../src/db/schema.js';
import { packagePath } from '../../src/package-root.js';

const KEBAB_CASE = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

function isCollector(value: unknown): value is Collector {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Collector).name === 'string' &&
    typeof (value as Collector).collect === 'function'
  );
}

/** Every exported Collector of src/collectors/*.ts, with the file that exports it. */
async function exportedCollectors(): Promise<Array<{ file: string; exported: string; collector: Collector }>> {
  const dir = packagePath('src', 'collectors');
  const files = readdirSync(dir).filter((file) => file.endsWith('.ts'));
  const found: Array<{ file: string; exported: string; collector: Collector }> = [];
  for (const file of files) {
    const module: Record<string, unknown> = await import(pathToFileURL(`${dir}/${file}`).href);
    for (const [exported, value] of Object.entries(module)) {
      if (isCollector(value)) found.push({ file, exported, collector: value });
    }
  }
  return found;
}

describe('collector registry', () => {
  it('registers every collector that a file of src/collectors exports', async () => {
    const found = await exportedCollectors();
    expect(found.length).toBeGreaterThan(0);
    const registered = new Set(collectors.values());
    const missing = found
      .filter(({ collector }) => !registered.has(collector))
      .map(({ file, exported }) => `${file}: ${exported}`);
    expect(missing).toEqual([]);
  });

  it('keys each collector by its own name, unique, kebab-case and alphabetical', () => {
    const names = [...collectors.keys()];
    for (const [name, collector] of collectors) {
      expect(collector.name).toBe(name);
      expect(name).toMatch(KEBAB_CASE);
    }
    expect(new Set([...collectors.values()].map((collector) => collector.name)).size).toBe(collectors.size);
    expect(names).toEqual([...names].sort());
  });

  it('holds exactly the names of COLLECTOR_NAMES, each with its settings in the config', () => {
    expect([...collectors.keys()]).toEqual(COLLECTOR_NAMES);
    expect(Object.keys(defaultConfig([{ name: 'main', apiKey: 'rpa_unused' }]).collectors).sort()).toEqual(
      COLLECTOR_NAMES,
    );
  });

  it('names the collectors feeding some tables, in registry order, none for a table no collector writes', () => {
    expect(collectorsFeeding(gpuStock)).toEqual(['stock']);
    expect(collectorsFeeding(pods, billingRecords)).toEqual(['billing', 'pods']);
    expect(collectorsFeeding(alerts)).toEqual([]);
  });
});
