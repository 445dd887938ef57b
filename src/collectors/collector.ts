import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { ApiClient } from '../api/index.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config/schema.js';
import type { CollectorName } from '../config/sections/collectors.js';
import type { Database } from '../db/open.js';
import type { Logger } from '../log.js';

export { COLLECTOR_NAMES, type CollectorName } from '../config/sections/collectors.js';

/**
 * Everything one collector run may use. `now` is read once when the run starts, so every row it
 * writes agrees on the time; `signal` aborts the run on shutdown or timeout.
 */
export interface CollectContext {
  account: string;
  api: ApiClient;
  db: Database;
  config: Config;
  clock: Clock;
  now: number;
  log: Logger;
  signal: AbortSignal;
  /** Where a long run draws its progress bar, when a terminal (default stderr); a replay draws its own. */
  progressStream?: NodeJS.WritableStream & { isTTY?: boolean };
}

export interface CollectResult {
  /** Rows written (inserted or changed), for collector_runs and logs. */
  rows: number;
  /** What the run had to leave out though it succeeded (e.g. Pods the schema rejected). */
  detail?: string;
}

/**
 * A collector fetches everything first, then writes its rows in one synchronous transaction,
 * so a failed sub-request leaves the previous rows in place. Billing is the exception: a page
 * holds too many records to store in one transaction without holding the event loop, so it
 * stores each page a slice of whole buckets per transaction, every bucket either as it was or
 * as reported, and its cursor advances with the slice that stored it
 * (src/collectors/billing-store.ts).
 * A collector never evaluates rules, never retries (the API client does) and never records
 * its own run (the runner does).
 *
 * A collector is declared once, in its own file: its name (the key of its settings, whose
 * default schedule and options src/config/sections/collectors.ts holds), the tables it writes,
 * and `collect`. Everything else that lists collectors derives from the registry
 * (src/collectors/index.ts): schedules, health metrics and status rows, which metric areas
 * refresh after its runs (those reading a table it feeds). docs/collectors.md says what adding
 * one takes.
 */
export interface Collector<Name extends CollectorName = CollectorName> {
  readonly name: Name;
  /** Every table its runs write; test/collectors/feeds.test.ts checks that against a real run. */
  readonly feeds: readonly SQLiteTable[];
  collect(ctx: CollectContext): Promise<CollectResult>;
}
