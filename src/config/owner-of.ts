import type { OwnerField, OwnersConfig } from './sections/owners.js';
import { OWNER_FIELDS } from './sections/owners.js';

export interface Ownership {
  owner: string | null;
  team: string | null;
}

/** A Pod, endpoint or volume as ownership sees it: its name, and its stored env (Pods only). */
export interface OwnedResource {
  name: string | null;
  env?: Readonly<Record<string, string>> | null;
}

/**
 * Who owns a resource: per field, the first source that yields a non-blank value wins (env keys
 * in order, then name patterns in order, then the default); no source: null, never an empty or
 * invented value. Pure: same config and resource, same answer.
 */
export function ownerOf(owners: OwnersConfig, resource: OwnedResource): Ownership {
  const { name } = resource;
  const fromNames = name === null ? [] : owners.fromName.map((source) => new RegExp(source).exec(name)?.groups ?? {});
  const resolve = (field: OwnerField): string | null => {
    const candidates = [
      ...owners.fromEnv[field].map((key) => resource.env?.[key]),
      ...fromNames.map((groups) => groups[field]),
      owners.default[field],
    ];
    return candidates.map((value) => value?.trim()).find((value): value is string => Boolean(value)) ?? null;
  };
  const [owner, team] = OWNER_FIELDS.map(resolve) as [string | null, string | null];
  return { owner, team };
}

/** The env keys ownership reads: the Pod collector stores them (and only named keys) with each Pod. */
export function ownerEnvNames(owners: OwnersConfig): string[] {
  return [...new Set(OWNER_FIELDS.flatMap((field) => owners.fromEnv[field]))];
}
