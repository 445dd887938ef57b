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
 * A collector fetches everything first, then writes its rows in one transaction, so a failed
 * sub-request leaves the previous rows in place (billing stores a page in slices of whole buckets,
 * its cursor advancing with each: billing-store.ts). It never evaluates rules, retries (the API
 * client does) or records its own run (the runner does). It is declared once, in its own file
 * (its name keys its settings in config/sections/collectors.ts); everything else that lists
 * collectors derives from the registry (index.ts; docs/collectors.md).
 */
export interface Collector<Name extends CollectorName = CollectorName> {
  readonly name: Name;
  /** Every table its runs write; test/collectors/feeds.test.ts checks that against a real run. */
  readonly feeds: readonly SQLiteTable[];
  collect(ctx: CollectContext): Promise<CollectResult>;
}
