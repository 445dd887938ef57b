import type { Database } from '../db/open.js';
import { perDatabase } from '../db/statements.js';

/** How often the waste checks' conclusions were built again or reused, per database. */
export interface WasteMemoCounts {
  built: number;
  reused: number;
}

interface Entry {
  inputs: readonly unknown[];
  value: unknown;
}

const memos = perDatabase(() => ({ entries: new Map<string, Entry>(), counts: { built: 0, reused: 0 } }));

/**
 * What a waste check concludes from its inputs, kept per database and key (account and check)
 * while every input is the very value it was last time. The inputs are what the query files'
 * cached reads return (the same object until their tables are written, or another connection
 * commits) and plain values, so an unchanged input is an unchanged reading: the rules run every
 * minute while endpoints, volumes and billing change every 5 or 15. What moves with the clock
 * alone (a threshold crossed, an amount paid so far) is left to the caller, each tick.
 */
export function memoized<T>(database: Database, key: string, inputs: readonly unknown[], build: () => T): T {
  const memo = memos(database);
  const kept = memo.entries.get(key);
  if (kept && kept.inputs.length === inputs.length && kept.inputs.every((input, i) => input === inputs[i])) {
    memo.counts.reused += 1;
    return kept.value as T;
  }
  const value = build();
  memo.entries.set(key, { inputs, value });
  memo.counts.built += 1;
  return value;
}

/** The counts so far, for tests that check a check is not rebuilt when nothing changed. */
export function wasteMemoCounts(database: Database): WasteMemoCounts {
  return { ...memos(database).counts };
}
