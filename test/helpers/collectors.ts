import { COLLECTOR_NAMES, type CollectorName } from '../../src/collectors/collector.js';
import type { Config } from '../../src/config/schema.js';

/**
 * The `collectors` section of a test's config that runs only the collectors named, each with
 * its `settings` if given: every other collector of the registry is off, so a collector added
 * later stays out of tests that never asked for it.
 */
export function onlyCollectors(
  on: readonly CollectorName[],
  settings: Partial<Record<CollectorName, Record<string, unknown>>> = {},
): Record<string, Record<string, unknown>> {
  return Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, { ...settings[name], enabled: on.includes(name) }]));
}

/** Turns off, in a parsed config, every collector but those named. */
export function runOnlyCollectors(config: Config, on: readonly CollectorName[]): void {
  for (const name of COLLECTOR_NAMES) config.collectors[name].enabled = on.includes(name);
}
