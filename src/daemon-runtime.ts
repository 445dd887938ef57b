import { type Clock, RealClock } from './clock.js';
import type { ReloadOutcome } from './config/reload-status.js';
import type { Config } from './config/schema.js';
import { Daemon } from './daemon.js';
import { ConfigReloader, type Reconfigurable } from './daemon-reload.js';
import type { Logger } from './log.js';
import type { CommandLine } from './messages/commands.js';
import { RealScheduler } from './scheduler/real.js';
import { startMetricsServer } from './web/server.js';

/** On shutdown, runs get this long to finish, then aborted ones this long to record how they ended: within 10 s. */
const SHUTDOWN_GRACE_MS = 7_000;
const ABORT_GRACE_MS = 1_500;

export interface RuntimeOptions {
  config: Config;
  /** Real time for `podwarden run`; the demo passes the simulator's scaled clock. */
  clock: Clock;
  log: Logger;
  /**
   * Reads and validates the configuration file again (`podwarden run`); with it, SIGHUP (the
   * caller's) and `POST /-/reload` reload. Absent (the demo), there is nothing to reload.
   */
  loadConfig?: () => Config;
  /** How a person runs this podwarden, for the commands mails and pages quote (src/cli/command-line.ts). */
  commandLine: CommandLine;
}

export interface Runtime {
  daemon: Daemon;
  /** Base URL of the metrics and status server (`/metrics`, `/healthz`, `/readyz`, `/api/status`). */
  httpUrl: string;
  /** Reloads the configuration (see daemon-reload.ts); refused with a problem when there is no file to reload. */
  reload(trigger: string): Promise<ReloadOutcome>;
  /** Stops scheduling, lets in-flight runs finish (bounded), aborts the rest, closes the database. */
  stop(): Promise<void>;
}

/** The daemon in real time (`run`, `demo`): the server, every job on croner, each but retention once at start. */
export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { config, clock, log, commandLine } = options;
  const daemon = await Daemon.open({ config, clock, log, commandLine });
  await daemon.recordClockOffset(new RealClock().now());
  const scheduler = new RealScheduler(log);
  // Made before the server, which serves its status and POST /-/reload; it reconfigures the
  // server too, so it is given its parts once they exist (below).
  const parts: Reconfigurable[] = [];
  const reloader =
    options.loadConfig === undefined
      ? undefined
      : new ConfigReloader({ config, load: options.loadConfig, parts, clock, log });
  let stopping: Promise<void> | undefined;
  const reload = (trigger: string): Promise<ReloadOutcome> => {
    const refused = (message: string) => {
      log.warn({ trigger }, `configuration not reloaded: ${message}`);
      return Promise.resolve({ problems: [{ path: '', message }] });
    };
    if (reloader === undefined) return refused('no configuration file to reload');
    // A SIGHUP or POST during shutdown would make metrics and schedules again for a closing daemon.
    if (stopping !== undefined) return refused('shutting down');
    return reloader.reload(trigger);
  };
  // Before any job runs, so a taken port fails the start instead of leaving a half-up daemon.
  const http = await startMetricsServer({
    config,
    daemon,
    clock,
    log,
    reload: reloader && (() => reload('POST /-/reload')),
    reloads: reloader && (() => reloader.status()),
  }).catch(async (error: unknown) => {
    await daemon.close();
    throw error;
  });
  // The daemon first (jobs read its configuration), then the schedules, then what the server shows.
  parts.push(daemon, { reconfigure: () => scheduler.replace(daemon.jobs()) }, http);
  const jobs = daemon.jobs();
  for (const job of jobs) scheduler.add(job);
  scheduler.start();
  log.info(
    {
      accounts: config.accounts.map((a) => a.name),
      collectors: daemon.enabledCollectors(),
      database: config.database.path,
      metrics: `${http.url}/metrics`,
    },
    'podwarden running',
  );
  for (const job of jobs) if (job.name !== 'retention') void scheduler.fire(job);

  const stop = async () => {
    const { unfinished } = await scheduler.stop(SHUTDOWN_GRACE_MS);
    if (unfinished.length > 0) {
      log.warn({ unfinished }, 'aborting runs still in flight');
      // Closing the database under a run that still awaits would lose what it learns (a send's
      // success): abort first, and close only once they have written their outcome.
      daemon.abortRuns();
      const { unfinished: stuck } = await scheduler.settle(ABORT_GRACE_MS);
      if (stuck.length > 0) log.error({ runs: stuck }, 'runs did not end when aborted; closing the database anyway');
    }
    await http.close();
    await daemon.close();
  };
  return {
    daemon,
    httpUrl: http.url,
    reload,
    stop: () => {
      stopping ??= stop();
      return stopping;
    },
  };
}
