import { Command } from 'commander';
import { COLLECTOR_NAMES, type CollectorName } from '../collectors/collector.js';
import { loadConfig } from '../config/load.js';
import { Daemon } from '../daemon.js';
import { EXIT_FAILURE } from '../exit-codes.js';
import { redact } from '../redact.js';
import { clockFor, clockStartOption } from './clock-start.js';
import { configOption } from './config-option.js';
import { UsageError } from './exit.js';
import { loggerFor } from './logger.js';
import { applyAndLogMemoryPolicy } from './memory-policy-log.js';

/**
 * `podwarden collect [NAME...]`: runs the named collectors (default: every enabled one) once for
 * every account, prints one line per run and exits; 1 when any run failed.
 */
export function collectCommand(): Command {
  return new Command('collect')
    .description('Run collectors once for every account and exit.')
    .argument('[names...]', `collectors to run (${COLLECTOR_NAMES.join(', ')}); default: every enabled one`)
    .option('--once', 'run once and exit (the only mode; run `podwarden run` for schedules)', true)
    .addOption(configOption())
    .addOption(clockStartOption("to collect from a simulator scenario at its day's time"))
    .action(async (names: string[], options: { config?: string; clockStart?: string }) => {
      const unknown = names.filter((name) => !(COLLECTOR_NAMES as readonly string[]).includes(name));
      if (unknown.length > 0) {
        throw new UsageError(`unknown collector ${unknown.join(', ')} (known: ${COLLECTOR_NAMES.join(', ')})`);
      }
      const clock = clockFor(options.clockStart);
      const config = loadConfig({ path: options.config, env: process.env });
      const log = loggerFor(config);
      applyAndLogMemoryPolicy(log);
      const only = names.length > 0 ? (names as CollectorName[]) : undefined;
      const daemon = await Daemon.open({ config, clock, log, only });
      try {
        const reports = await daemon.collectOnce();
        for (const r of reports) {
          const detail = r.error ? `  ${r.error}` : '';
          process.stdout.write(
            redact(
              `${r.account}\t${r.collector}\t${r.outcome}\t${r.rows} rows\t${r.endedAt - r.startedAt} ms${detail}\n`,
            ),
          );
        }
        if (reports.some((r) => r.outcome === 'error')) process.exitCode = EXIT_FAILURE;
      } finally {
        await daemon.close();
      }
    });
}
