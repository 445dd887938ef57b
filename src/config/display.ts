import { stringify } from 'yaml';
import { formatDuration } from '../duration.js';
import { maskSecret } from '../redact.js';
import type { Config } from './schema.js';
import { SECRET_FIELDS } from './secret.js';

const SECRET_NAMES = new Set<string>(SECRET_FIELDS);

/** A copy of the configuration with every secret masked (`rpa_…9Q`): safe to print or serve. */
export function maskedConfig(config: Config): unknown {
  return mapTree(config, (key, value) =>
    SECRET_NAMES.has(key) && typeof value === 'string' ? [key, maskSecret(value)] : [key, value],
  );
}

/** The effective configuration as YAML, secrets masked and durations as written (`rawSamples: 14d`): itself valid. */
export function configAsYaml(config: Config): string {
  const readable = mapTree(maskedConfig(config), (key, value) =>
    key.endsWith('Ms') && typeof value === 'number' ? [key.slice(0, -2), formatDuration(value)] : [key, value],
  );
  return stringify(readable, { lineWidth: 0 });
}

/**
 * Rebuilds a plain tree of objects and arrays, letting `entry` rename or replace each field; a
 * field whose value `entry` keeps is walked into, a replaced one is final.
 */
function mapTree(node: unknown, entry: (key: string, value: unknown) => [string, unknown]): unknown {
  if (Array.isArray(node)) return node.map((item) => mapTree(item, entry));
  if (node !== null && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => {
        const [name, replaced] = entry(key, value);
        return [name, replaced === value ? mapTree(value, entry) : replaced];
      }),
    );
  }
  return node;
}
