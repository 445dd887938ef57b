import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { loadConfig } from '../config/load.js';
import { DurationError, parseDuration } from '../duration.js';
import { createLogger } from '../log.js';
import { replay } from '../replay/replay.js';
import { loadScenario } from '../simulator/scenario.js';
import { configOption } from './config-option.js';
import { UsageError } from './exit.js';
import { resolveScenario } from './scenario-option.js';

interface SimulateOptions {
  scenario: string;
  until: string;
  config?: string;
  report?: string;
  db?: string;
}

/**
 * `podwarden simulate`: the simulator and the daemon together on a virtual clock, as fast as the
 * machine allows; writes the replay report (SCENARIO.md) and prints a summary.
 */
export function simulateCommand(): Command {
  return new Command('simulate')
    .description('Replay a scenario through the daemon in virtual time and report what it did.')
    .requiredOption('--scenario <file>', 'scenario file (JSON or YAML), or a bundled one (demo, small-team, large)')
    .requiredOption('--until <duration>', 'how much virtual time to play from the scenario start, e.g. 24h')
    .addOption(configOption())
    .option('--report <file>', 'write the JSON report here (default: print it on stdout)')
    .option('--db <file>', 'keep the database in this file (default: a temporary one)')
    .action(async (options: SimulateOptions) => {
      let durationMs: number;
      try {
        durationMs = parseDuration(options.until);
      } catch (error) {
        if (error instanceof DurationError) throw new UsageError(`--until: ${error.message}`);
        throw error;
      }
      if (durationMs <= 0) throw new UsageError(`--until: expected a positive duration, got "${options.until}"`);
      const scenario = loadScenario(resolveScenario(options.scenario));
      const config = options.config ? loadConfig({ path: options.config, env: process.env }) : undefined;
      const log = createLogger({ level: config?.log.level ?? process.env.PODWARDEN_LOG_LEVEL ?? 'warn' });
      const report = await replay({ scenario, config, durationMs, dbPath: options.db, log });
      const json = `${JSON.stringify(report, null, 2)}\n`;
      if (options.report) {
        writeFileSync(options.report, json);
        const { api } = report;
        process.stderr.write(
          `simulated ${options.until} of ${scenario.name} in ${(report.wallMs / 1000).toFixed(1)} s: ` +
            `${api.requests} requests (${api.status429} × 429, ${api.status5xx} × 5xx), ` +
            `${report.stops.length} stops, ${report.alerts.length} alerts, ${report.emails.length} emails; report: ${options.report}\n`,
        );
      } else {
        process.stdout.write(json);
      }
    });
}
