import { Command } from 'commander';
import { configFile, loadConfig } from '../config/load.js';
import { type Runtime, startRuntime } from '../daemon-runtime.js';
import type { Logger } from '../log.js';
import { clockFor, clockStartOption } from './clock-start.js';
import { commandLineFor } from './command-line.js';
import { configOption } from './config-option.js';
import { loggerFor } from './logger.js';
import { applyAndLogMemoryPolicy } from './memory-policy-log.js';

/** From SIGTERM to exit, at most. */
const EXIT_DEADLINE_MS = 9_500;

/** `podwarden run`: the daemon until SIGTERM or SIGINT (graceful, exit 0; a second one exits at once). */
export function runCommand(): Command {
  return new Command('run')
    .description(
      'Run the daemon: collectors on their schedules until SIGTERM or SIGINT; SIGHUP reloads the configuration.',
    )
    .addOption(configOption())
    .addOption(clockStartOption('to watch a simulator scenario live'))
    .action(async (options: { config?: string; clockStart?: string }) => {
      const clock = clockFor(options.clockStart);
      const config = loadConfig({ path: options.config, env: process.env });
      // The commands mails and pages quote name the file this daemon runs with.
      const commandLine = commandLineFor(configFile({ path: options.config, env: process.env }));
      const log = loggerFor(config);
      applyAndLogMemoryPolicy(log);
      const stopRequested = nextStopRequest(log);
      const reloads = reloadOnHangup(log);
      const runtime = await startRuntime({
        config,
        clock,
        log,
        commandLine,
        loadConfig: () => loadConfig({ path: options.config, env: process.env }),
      });
      reloads.attach(runtime);

      const { reason, exitCode } = await stopRequested;
      log.info({ reason }, 'shutting down');
      // The runtime's graces add up to less; this is the promise whatever a peer does (unref'd,
      // so a clean stop exits at once).
      setTimeout(() => {
        log.error({ deadlineMs: EXIT_DEADLINE_MS }, 'shutdown did not finish in time; exiting');
        process.exit(1);
      }, EXIT_DEADLINE_MS).unref();
      process.once('SIGTERM', () => process.exit(1));
      process.once('SIGINT', () => process.exit(1));
      await runtime.stop();
      process.exitCode = exitCode;
      log.info('stopped');
    });
}

/** SIGHUP reloads; handled from before the start (Node's default is to exit), ignored while starting. */
function reloadOnHangup(log: Logger): { attach(runtime: Runtime): void } {
  let target: Runtime | undefined;
  process.on('SIGHUP', () => {
    if (target === undefined) log.warn('SIGHUP while starting: not reloaded; send it again once running');
    else void target.reload('SIGHUP');
  });
  return {
    attach: (runtime) => {
      target = runtime;
    },
  };
}

/**
 * Resolves on SIGTERM or SIGINT (exit 0), or on an error nothing else caught (exit 1), logged
 * redacted, so the daemon shuts down cleanly instead of dying mid-write.
 */
function nextStopRequest(log: Logger): Promise<{ reason: string; exitCode: number }> {
  return new Promise((resolve) => {
    process.once('SIGTERM', () => resolve({ reason: 'SIGTERM', exitCode: 0 }));
    process.once('SIGINT', () => resolve({ reason: 'SIGINT', exitCode: 0 }));
    process.on('unhandledRejection', (error) => {
      log.fatal({ err: error }, 'unhandled promise rejection');
      resolve({ reason: 'unhandled promise rejection', exitCode: 1 });
    });
    process.on('uncaughtException', (error) => {
      log.fatal({ err: error }, 'uncaught exception');
      resolve({ reason: 'uncaught exception', exitCode: 1 });
    });
  });
}
