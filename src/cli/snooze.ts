import { Command } from 'commander';
import { toIso } from '../clock.js';
import { loadConfig } from '../config/load.js';
import { accountsOfPod, snoozePod } from '../db/idle-state.js';
import { formatDuration } from '../duration.js';
import { durationArgument } from './arguments.js';
import { configOption } from './config-option.js';
import { clockNote, daemonNow } from './daemon-now.js';
import { UsageError } from './exit.js';
import { withDatabase } from './with-database.js';

interface SnoozeOptions {
  config?: string;
  account?: string;
}

/**
 * `podwarden snooze POD DURATION` (`0s` ends one): no idle ladder step for the Pod until then;
 * afterwards the ladder starts over, so a new warning comes before any stop.
 */
export function snoozeCommand(): Command {
  return new Command('snooze')
    .description('Postpone idle actions (warning and stop) on a Pod for a while.')
    .argument('<pod>', 'the Pod id')
    .argument('<duration>', 'how long, e.g. 30m, 4h, 2d; 0s ends the snooze')
    .addOption(configOption())
    .option('--account <name>', 'the account of the Pod (default: every account that has seen it)')
    .action(async (podId: string, durationText: string, options: SnoozeOptions) => {
      const durationMs = durationArgument('duration', durationText, { ms: 0, expected: 'a positive duration or 0s' });
      const config = loadConfig({ path: options.config, env: process.env });
      const known = config.accounts.map((account) => account.name);
      if (options.account !== undefined && !known.includes(options.account)) {
        throw new UsageError(`--account: no account "${options.account}" in the configuration (${known.join(', ')})`);
      }
      await withDatabase(config.database.path, {}, async (database) => {
        const accounts = options.account ? [options.account] : await accountsOfPod(database, podId);
        if (accounts.length === 0) {
          throw new UsageError(`snooze ${podId}: no account has seen this Pod yet; pass --account to snooze it anyway`);
        }
        // The daemon's time: beside the demo, 4h means 4h of the scenario's day.
        const clock = await daemonNow(database);
        const { now } = clock;
        for (const account of accounts) {
          await snoozePod(database, { account, podId, until: now + durationMs, createdAt: now });
          const what =
            durationMs === 0
              ? 'snooze ended'
              : `snoozed until ${toIso(now + durationMs)}${clockNote(clock)} (${formatDuration(durationMs)})`;
          process.stdout.write(`${podId} (${account}): ${what}\n`);
        }
      });
    });
}
