import { Command } from 'commander';
import { RealClock } from '../clock.js';
import { loadConfig } from '../config/load.js';
import { Daemon } from '../daemon.js';
import { RealScheduler } from '../scheduler/real.js';
import { configOption } from './config-option.js';
import { loggerFor } from './logger.js';

/** In-flight collector runs get this long to finish on shutdown, inside the 10 s we promise. */
const SHUTDOWN_GRACE_MS = 7_000;

/**
 * `podwarden run`: the daemon. Every collector runs once at start, then on its schedule. On
 * SIGTERM or SIGINT it stops scheduling, lets in-flight runs finish (bounded), aborts what is
 * left, closes the database and exits 0; a second signal exits at once.
 */
export function runCommand(): Command {
  return new Command('run')
    .description('Run the daemon: collectors on their schedules until SIGTERM or SIGINT.')
    .addOption(configOption())
    .action(async (options: { config?: string }) => {
      const config = loadConfig({ path: options.config, env: process.env });
      const log = loggerFor(config);
      const daemon = new Daemon({ config, clock: new RealClock(), log });
      const scheduler = new RealScheduler(log);
      const jobs = daemon.jobs();
      for (const job of jobs) scheduler.add(job);
      scheduler.start();
      log.info(
        {
          accounts: config.accounts.map((a) => a.name),
          collectors: daemon.enabledCollectors(),
          database: config.database.path,
        },
        'podwarden running',
      );
      for (const job of jobs) if (job.name !== 'retention') void scheduler.fire(job);

      const signal = await nextSignal();
      log.info({ signal }, 'shutting down');
      process.once('SIGTERM', () => process.exit(1));
      process.once('SIGINT', () => process.exit(1));
      const { unfinished } = await scheduler.stop(SHUTDOWN_GRACE_MS);
      if (unfinished.length > 0) log.warn({ unfinished }, 'aborting runs still in flight');
      await daemon.close();
      log.info('stopped');
    });
}

function nextSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
}
