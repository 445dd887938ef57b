import type { Registry } from 'prom-client';
import type { RateLimitWindow } from '../api/index.js';
import type { Clock } from '../clock.js';
import type { CollectorName } from '../collectors/collector.js';
import type { ConfigReloadStatus } from '../config/reload-status.js';
import type { Config } from '../config/schema.js';
import type { DaemonEvents } from '../daemon-events.js';
import type { Database } from '../db/open.js';
import type { EventBus } from '../events.js';
import type { CommandLine } from '../messages/commands.js';

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
  /** How the commands the pages quote run this podwarden; bare `podwarden` when absent. */
  readonly commandLine?: CommandLine;
}

/** What makes values derived from the database change: the evaluation tick or one collector's run. */
export type RefreshTrigger = 'tick' | CollectorName;

export interface Refresh {
  /** `start` when the metrics are created (a restart serves what the database holds). */
  trigger: RefreshTrigger | 'start';
  /** The tick's time, or when the collector's run ended. */
  now: number;
  /** The account whose collector ran; undefined when every account's values may have changed. */
  account?: string;
}

/** The accounts a refresh concerns: the one whose collector ran, or all of them. */
export function refreshedAccounts(config: Config, at: Refresh): string[] {
  return at.account === undefined ? accountNames(config) : [at.account];
}

/** Everything one area of metrics needs to create its series on the shared registry. */
export interface MetricsContext {
  registry: Registry;
  source: MetricsSource;
  config: Config;
  clock: Clock;
  /** How the configuration was last (re)loaded, when the daemon can reload it (`podwarden run`). */
  reloads?: () => ConfigReloadStatus;
  /** Registers what undoes an area's setup beyond the registry (its event listeners). */
  onClose(dispose: () => void): void;
  /** Runs `refresh` at once and after each of `triggers`, one at a time; a scrape never computes. */
  refreshOn(triggers: readonly RefreshTrigger[], refresh: (at: Refresh) => void | Promise<void>): void;
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
