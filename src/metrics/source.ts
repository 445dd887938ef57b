import type { Registry } from 'prom-client';
import type { RateLimitWindow } from '../api/index.js';
import type { Clock } from '../clock.js';
import type { CollectorName } from '../collectors/collector.js';
import type { Config } from '../config/schema.js';
import type { DaemonEvents } from '../daemon.js';
import type { Database } from '../db/open.js';
import type { EventBus } from '../events.js';

/**
 * What metrics and the status server read of the daemon: its database, its events and a few
 * read-only views of memory. The Daemon satisfies it; nothing here may call the API.
 */
export interface MetricsSource {
  readonly db: Database;
  readonly events: EventBus<DaemonEvents>;
  enabledCollectors(): CollectorName[];
  rateLimits(): Array<{ account: string; windows: RateLimitWindow[] }>;
  /** Why the database could not be written lately (disk full), or undefined when it can. */
  databaseWriteProblem(): string | undefined;
}

/** Everything one area of metrics needs to create its series on the shared registry. */
export interface MetricsContext {
  registry: Registry;
  source: MetricsSource;
  config: Config;
  clock: Clock;
  /** Registers what undoes an area's setup beyond the registry (its event listeners). */
  onClose(dispose: () => void): void;
}

/** Configured account names: the bounded set every `account` label comes from. */
export function accountNames(config: Config): string[] {
  return config.accounts.map((account) => account.name);
}

/**
 * The account names series start at 0 for: every configured account, and `all` when a budget
 * covers every account (its alerts carry `account="all"`).
 */
export function metricAccounts(config: Config): string[] {
  const all = config.budgets.some((budget) => budget.account === undefined) ? ['all'] : [];
  return [...accountNames(config), ...all];
}
