import type { World } from './world.js';

/**
 * Replies kept as their JSON bytes, per world and key (route and query), each beside the stamp
 * of the state it was built from. A daemon asks for the same catalog and GPU stock every few
 * minutes, and the answer changes only when a GPU type's availability does. The stamp is a number the world hands out that changes whenever the state a reply reads may have
 * (World.availabilityVersion): a kept reply is served only under the very stamp it was built
 * with, so it is byte for byte the reply building it again would give.
 */

interface Kept {
  stamp: number;
  bytes: Buffer;
}

/** Distinct keys kept per world: a client asking ever new queries starts the cache afresh. */
const LIMIT = 256;

const cache = new WeakMap<World, Map<string, Kept>>();

/** `JSON.stringify(build())` as UTF-8, built only when `key` has nothing kept under `stamp`. */
export function stampedBytes(world: World, key: string, stamp: number, build: () => unknown): Buffer {
  const found = keptBytes(world, key, stamp);
  if (found !== undefined) return found;
  const bytes = Buffer.from(JSON.stringify(build()));
  keepBytes(world, key, stamp, bytes);
  return bytes;
}

/** The bytes kept for `key`, if they were built under `stamp`. */
export function keptBytes(world: World, key: string, stamp: number): Buffer | undefined {
  const found = cache.get(world)?.get(key);
  return found !== undefined && found.stamp === stamp ? found.bytes : undefined;
}

export function keepBytes(world: World, key: string, stamp: number, bytes: Buffer): void {
  let kept = cache.get(world);
  if (kept === undefined) {
    kept = new Map();
    cache.set(world, kept);
  }
  if (!kept.has(key) && kept.size >= LIMIT) kept.clear();
  kept.set(key, { stamp, bytes });
}
