import type { OwnerField, OwnersConfig } from './sections/owners.js';

/** The named groups a pattern can capture: `|` makes it match the empty string, every group unset but named. */
function groupNames(source: string): string[] {
  return Object.keys(new RegExp(`${source}|`).exec('')?.groups ?? {});
}

/**
 * Whether `owners` can give any resource this field at all: an env key, a name pattern with its
 * named group, or a default. Without one, every resource lacks it, so a budget by team would
 * silently count nothing and spend by team would be one "(no team)" line.
 */
export function resolvesField(owners: OwnersConfig, field: OwnerField): boolean {
  return (
    owners.fromEnv[field].length > 0 ||
    owners.default[field] !== undefined ||
    owners.fromName.some((source) => groupNames(source).includes(field))
  );
}
