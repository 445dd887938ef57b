import { isDeepStrictEqual } from 'node:util';
import type { Clock } from './clock.js';
import { ConfigError, formatProblem, type Problem } from './config/errors.js';
import type { ConfigReloadStatus, ReloadOutcome } from './config/reload-status.js';
import type { Config } from './config/schema.js';
import type { Logger } from './log.js';

/**
 * What the composition root binds once (database, listen address, API clients, logger): a reload
 * changing any is refused as a whole, else the running configuration would be in no file.
 */
const BOUND_AT_START: ReadonlyArray<readonly [path: string, pick: (config: Config) => unknown]> = [
  ['accounts', (config) => config.accounts],
  ['api', (config) => config.api],
  ['database.path', (config) => config.database.path],
  ['http.listen', (config) => config.http.listen],
  ['log', (config) => config.log],
];

/** One problem per part of `next` that differs from `running` and cannot change without a restart. */
export function restartOnlyChanges(running: Config, next: Config): Problem[] {
  return BOUND_AT_START.filter(([, pick]) => !isDeepStrictEqual(pick(running), pick(next))).map(([path]) => ({
    path,
    message: 'cannot change without a restart',
  }));
}

/** A part of the running daemon made from the configuration, which takes a new one between runs. */
export interface Reconfigurable {
  reconfigure(config: Config): void | Promise<void>;
}

export interface ConfigReloaderOptions {
  /** The configuration the daemon started with. */
  config: Config;
  /** Reads and validates the configuration file again; throws ConfigError listing its problems. */
  load: () => Config;
  /** Given the new configuration in this order once it is valid and changes nothing bound at start. */
  parts: readonly Reconfigurable[];
  clock: Clock;
  log: Logger;
}

/**
 * Reloads on SIGHUP or `POST /-/reload`: an invalid file keeps the running configuration and logs
 * each problem; runs in flight finish with the configuration they started with.
 */
export class ConfigReloader {
  private running: Config;
  private state: ConfigReloadStatus;
  private readonly log: Logger;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly options: ConfigReloaderOptions) {
    this.running = options.config;
    this.state = { successful: true, lastSuccessAt: options.clock.now() };
    this.log = options.log.child({ component: 'reload' });
  }

  /** How the configuration was last (re)loaded, for the metrics. */
  status(): ConfigReloadStatus {
    return this.state;
  }

  /** Reloads now, or after the reload already under way (a SIGHUP and a POST at once take turns). */
  reload(trigger: string): Promise<ReloadOutcome> {
    const outcome = this.queue.then(() => this.reloadNow(trigger));
    this.queue = outcome.then(
      () => undefined,
      () => undefined,
    );
    return outcome;
  }

  private async reloadNow(trigger: string): Promise<ReloadOutcome> {
    const next = this.read();
    const problems = Array.isArray(next) ? next : restartOnlyChanges(this.running, next);
    if (Array.isArray(next) || problems.length > 0) {
      this.state = { ...this.state, successful: false };
      this.log.error({ trigger, problems: problems.length }, 'configuration not reloaded; the running one stays');
      for (const problem of problems) this.log.error({ trigger }, formatProblem(problem));
      return { problems };
    }
    try {
      for (const part of this.options.parts) await part.reconfigure(next);
    } catch (error) {
      // Not a problem of the file (the metrics' first reading of the database failed, say): the
      // parts before this one run on the new configuration already, so it counts as running.
      this.running = next;
      this.state = { ...this.state, successful: false };
      this.log.error({ trigger, err: error }, 'configuration not reloaded completely; reload again once fixed');
      return { problems: [{ path: '', message: `applying the configuration failed: ${(error as Error).message}` }] };
    }
    this.running = next;
    this.state = { successful: true, lastSuccessAt: this.options.clock.now() };
    this.log.info({ trigger }, 'configuration reloaded');
    return { problems: [] };
  }

  /** The new configuration, or its problems. */
  private read(): Config | Problem[] {
    try {
      return this.options.load();
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      return [{ path: '', message: `cannot read the configuration: ${(error as Error).message}` }];
    }
  }
}
