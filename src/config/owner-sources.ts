import { groupNames, OWNER_FIELDS, type OwnerField, type OwnersConfig } from './sections/owners.js';

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

/** Whether `owners` can give any resource an owner or a team: without a source, everything is unowned. */
export function namesAnyone(owners: OwnersConfig): boolean {
  return OWNER_FIELDS.some((field) => resolvesField(owners, field));
}
