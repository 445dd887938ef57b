import { type Clock, RealClock } from './clock.js';
import type { Config } from './config/schema.js';
import { Daemon } from './daemon.js';
import type { Logger } from './log.js';
import { startMetricsServer } from './metrics/server.js';
import { RealScheduler } from './scheduler/real.js';

/**
 * On shutdown, in-flight runs (collectors, an email being sent) get this long to finish; then
 * they are aborted and get ABORT_GRACE_MS to record how they ended (an abandoned email is
 * released, not marked sent) before the database closes. Both fit inside the 10 s we promise.
 */
const SHUTDOWN_GRACE_MS = 7_000;
const ABORT_GRACE_MS = 1_500;

export interface RuntimeOptions {
  config: Config;
  /** Real time for `podwarden run`; the demo passes the simulator's scaled clock. */
  clock: Clock;
  log: Logger;
}

export interface Runtime {
  daemon: Daemon;
  /** Base URL of the metrics and status server (`/metrics`, `/healthz`, `/readyz`, `/api/status`). */
  httpUrl: string;
  /** Stops scheduling, lets in-flight runs finish (bounded), aborts the rest, closes the database. */
  stop(): Promise<void>;
}

/**
 * The daemon in real time: the metrics server, every job on croner, and every collector and
 * the evaluation once at start (retention waits for its schedule). Shared by `podwarden run`
 * and `podwarden demo`.
 */
export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { config, clock, log } = options;
  const daemon = new Daemon({ config, clock, log });
  daemon.recordClockOffset(new RealClock().now());
  // Before any job runs, so a taken port fails the start instead of leaving a half-up daemon.
  const http = await startMetricsServer({ config, daemon, clock, log }).catch(async (error: unknown) => {
    await daemon.close();
    throw error;
  });
  const scheduler = new RealScheduler(log);
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

  let stopping: Promise<void> | undefined;
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
    stop: () => {
      stopping ??= stop();
      return stopping;
    },
  };
}
