import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { Command } from 'commander';
import { formatMatcher, MatcherError, parseMatcher } from '../alerts/matchers.js';
import { newSilence, SilenceError, silenceState } from '../alerts/silence.js';
import { toIso } from '../clock.js';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { ALERT_RULES } from '../config/sections/alerts.js';
import type { SilenceMatcher } from '../db/schema.js';
import { expireSilence, getSilence, insertSilence, listSilences } from '../db/silences.js';
import { metricAccounts } from '../metrics/source.js';
import { didYouMean } from '../near-miss.js';
import { durationArgument } from './arguments.js';
import { configOption } from './config-option.js';
import { daemonNow } from './daemon-now.js';
import { UsageError } from './exit.js';
import { withDatabase } from './with-database.js';

/**
 * A silence on `rule=wsate` or an account that does not exist matches nothing, silently: the
 * labels whose values podwarden knows (`rule`, `account`) are checked when matched for (in)equality.
 */
function knownLabelValue(matcher: SilenceMatcher, text: string, config: Config): SilenceMatcher {
  if (matcher.op !== '=' && matcher.op !== '!=') return matcher;
  const known: Record<string, { what: string; values: readonly string[] }> = {
    rule: { what: 'rules', values: ALERT_RULES },
    account: { what: 'configured accounts', values: metricAccounts(config) },
  };
  const label = known[matcher.name];
  if (label === undefined || label.values.includes(matcher.value)) return matcher;
  throw new MatcherError(
    text,
    `no ${matcher.name} ${matcher.value}${didYouMean(matcher.value, label.values)}; ${label.what}: ${label.values.join(', ')}`,
  );
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function whoAmI(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/**
 * `podwarden silence add|list|expire`: mute alerts whose labels match, for a while. Matchers are
 * Alertmanager's (`budget=gpu`, `rule!=capacity`, `pod_id=~pod-1|pod-2`); `key` matches the alert key.
 */
export function silenceCommand(): Command {
  const command = new Command('silence').description('Mute matching alerts for a while, list or expire silences.');
  command
    .command('add')
    .description('Add a silence; prints its id.')
    .requiredOption(
      '--match <matcher>',
      'label matcher, e.g. budget=gpu or key=waste:main:volume-unmounted:vol-1 (repeatable)',
      collect,
      [],
    )
    .requiredOption('--for <duration>', 'how long the silence lasts, e.g. 2h')
    .requiredOption('--comment <text>', 'why (shown by silence list)')
    .option('--author <name>', 'who is silencing', whoAmI())
    .addOption(configOption())
    .action(async (options: { match: string[]; for: string; comment: string; author: string; config?: string }) => {
      const durationMs = durationArgument('--for', options.for);
      try {
        const config = loadConfig({ path: options.config, env: process.env });
        const silence = await withDatabase(config.database.path, {}, async (database) => {
          const matchers = options.match.map((text) => knownLabelValue(parseMatcher(text), text, config));
          // Starts now on the daemon's clock: beside the demo, 2h means 2h of the scenario's day.
          const silence = newSilence({
            id: randomUUID(),
            matchers,
            durationMs,
            comment: options.comment,
            createdBy: options.author,
            now: (await daemonNow(database)).now,
          });
          await insertSilence(database, silence);
          return silence;
        });
        process.stdout.write(`${silence.id}\n`);
      } catch (error) {
        if (error instanceof MatcherError) throw new UsageError(`--match: ${error.message}`);
        if (error instanceof SilenceError) throw new UsageError(error.message);
        throw error;
      }
    });
  command
    .command('list')
    .description('List silences that are active or pending (with --all, expired ones too).')
    .option('--all', 'include expired silences')
    .addOption(configOption())
    .action(async (options: { all?: boolean; config?: string }) => {
      const config = loadConfig({ path: options.config, env: process.env });
      const { now, rows } = await withDatabase(config.database.path, { readonly: true }, async (database) => {
        const { now } = await daemonNow(database);
        return { now, rows: await listSilences(database, options.all ? undefined : now) };
      });
      process.stdout.write('ID\tSTATE\tENDS\tMATCHERS\tCREATED BY\tCOMMENT\n');
      for (const silence of rows) {
        const matchers = silence.matchers.map(formatMatcher).join(',');
        process.stdout.write(
          `${silence.id}\t${silenceState(silence, now)}\t${toIso(silence.endsAt)}\t${matchers}\t${silence.createdBy}\t${silence.comment}\n`,
        );
      }
    });
  command
    .command('expire')
    .description('End a silence now (an expired one stays expired).')
    .argument('<id>', 'the silence id (from silence add or list)')
    .addOption(configOption())
    .action(async (id: string, options: { config?: string }) => {
      const config = loadConfig({ path: options.config, env: process.env });
      await withDatabase(config.database.path, {}, async (database) => {
        if (!(await getSilence(database, id))) throw new UsageError(`silence ${id}: no such silence`);
        await expireSilence(database, id, (await daemonNow(database)).now);
      });
      process.stdout.write(`expired ${id}\n`);
    });
  return command;
}
