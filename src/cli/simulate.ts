import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { HOUR_MS } from '../buckets.js';
import { VirtualClock } from '../clock.js';
import { startProgress } from '../collectors/progress.js';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { backtestSummary, type SandboxedTargets } from '../messages/backtest-summary.js';
import { replay } from '../replay/replay.js';
import { warningCollector } from '../replay/warnings.js';
import { loadScenario } from '../simulator/scenario.js';
import { durationArgument } from './arguments.js';
import { configOption } from './config-option.js';
import { resolveScenario } from './scenario-option.js';

interface SimulateOptions {
  scenario: string;
  until: string;
  config?: string;
  report?: string;
  db?: string;
}

/**
 * `podwarden simulate`: simulator and daemon on a virtual clock; the report goes to --report or
 * stdout, a summary to stderr. With `--config` a sandboxed backtest: nothing the file names is called.
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
      const durationMs = durationArgument('--until', options.until, { ms: 1, expected: 'a positive duration' });
      const scenario = loadScenario(resolveScenario(options.scenario));
      const config = options.config ? loadConfig({ path: options.config, env: process.env }) : undefined;
      const clock = new VirtualClock(scenario.startMs);
      const { log, warnings } = warningCollector(clock, config?.log.level ?? process.env.PODWARDEN_LOG_LEVEL ?? 'warn');
      const hours = Math.ceil(durationMs / HOUR_MS);
      const progress = startProgress({ label: `simulating ${scenario.name}`, total: hours, unit: 'h', log });
      let reachedHours = 0;
      const replayed = await replay({
        scenario,
        config,
        durationMs,
        dbPath: options.db,
        log,
        clock,
        onProgress: (virtualMs) => {
          const now = Math.floor((virtualMs - scenario.startMs) / HOUR_MS);
          progress.advance(now - reachedHours);
          reachedHours = Math.max(reachedHours, now);
        },
      })
        .catch((error: unknown) => {
          // No report will be written: the warnings kept for it are the likeliest explanation.
          for (const warning of warnings) process.stderr.write(`${JSON.stringify(warning)}\n`);
          throw error;
        })
        .finally(() => progress.finish());
      const report = { ...replayed, warnings };
      const json = `${JSON.stringify(report, null, 2)}\n`;
      if (options.report) writeFileSync(options.report, json);
      else process.stdout.write(json);
      process.stderr.write(
        backtestSummary(report, {
          until: options.until,
          reportPath: options.report,
          sandboxed: config ? sandboxedTargets(config) : undefined,
        }),
      );
    });
}

function sandboxedTargets(config: Config): SandboxedTargets {
  return {
    smtp: config.email.host ? `${config.email.host}:${config.email.port ?? 'default port'}` : undefined,
    apiUrls: [...new Set(config.accounts.flatMap((account) => [account.restBaseUrl, account.graphqlBaseUrl]))],
    alertmanagerUrls: config.alerts.alertmanager?.urls ?? [],
    destinations: config.webhook.destinations.map((destination) => `webhook ${destination.name}`),
  };
}
