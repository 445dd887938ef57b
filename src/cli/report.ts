import { Command, Option } from 'commander';
import { toIso } from '../clock.js';
import { loadConfig } from '../config/load.js';
import { billedBuckets, namedResources, stopsDecidedIn } from '../db/report-reads.js';
import { savingsOverlapping } from '../db/savings.js';
import { billingKinds } from '../db/schema.js';
import { formatReport, REPORT_FORMATS, type ReportFormat } from '../messages/report.js';
import { buildReport, REPORT_GROUPINGS, type ReportGrouping } from '../messages/report-rows.js';
import { didYouMean } from '../near-miss.js';
import { localMidnight } from '../rules/period.js';
import { configOption } from './config-option.js';
import { daemonNow } from './daemon-now.js';
import { UsageError } from './exit.js';
import { withDatabase } from './with-database.js';

interface ReportOptions {
  config?: string;
  from: string;
  to?: string;
  by: ReportGrouping;
  format: ReportFormat;
  timeZone: string;
  account?: string;
}

/** The billing kinds a report sums: every route but `/billing` (`account`), which is their total. */
const REPORTED_KINDS = billingKinds.filter((kind) => kind !== 'account');

/**
 * `podwarden report`: spend from the stored billing, what the stops saved (the savings ledger)
 * and the stops decided, per Pod, team, billing kind or day, for a window of time.
 */
export function reportCommand(): Command {
  return new Command('report')
    .description('Spend (stored billing, to the cent), savings and stops per Pod, team, billing kind or day.')
    .addOption(configOption())
    .requiredOption('--from <date>', 'start of the window: an ISO date (2026-11-02) or time (2026-11-02T08:00:00Z)')
    .option('--to <date>', "end of the window, exclusive (default: now, by the daemon's clock)")
    .addOption(new Option('--by <group>', 'one row per').choices(REPORT_GROUPINGS).default('pod'))
    .addOption(new Option('--format <format>', 'output format').choices(REPORT_FORMATS).default('table'))
    .option('--time-zone <zone>', 'IANA time zone of dates without one and of --by day', 'UTC')
    .option('--account <name>', 'only this account')
    .action(async (options: ReportOptions) => {
      const config = loadConfig({ path: options.config, env: process.env });
      const timeZone = checkedTimeZone(options.timeZone);
      const accounts = config.accounts.map((account) => account.name);
      if (options.account !== undefined && !accounts.includes(options.account)) {
        throw new UsageError(
          `report: --account ${options.account}: no such account${didYouMean(options.account, accounts)}; configured accounts: ${accounts.join(', ')}`,
        );
      }
      const from = parseReportTime('--from', options.from, timeZone);
      // Read-only, as `why`: works on a database podwarden may not write.
      await withDatabase(config.database.path, { readonly: true }, async (database) => {
        const { now } = await daemonNow(database);
        const to = options.to === undefined ? now : parseReportTime('--to', options.to, timeZone);
        if (to <= from) {
          throw new UsageError(`report: --to ${toIso(to)} is not after --from ${toIso(from)} (--to is exclusive)`);
        }
        const window = { from, to };
        // The configured accounts (or the one asked for): a database may hold rows of accounts since removed.
        const chosen = options.account === undefined ? accounts : [options.account];
        const mine = <T extends { account: string }>(rows: readonly T[]) =>
          rows.filter((row) => chosen.includes(row.account));
        const report = buildReport({
          ...window,
          now,
          by: options.by,
          timeZone,
          owners: config.owners,
          buckets: await billedBuckets(database, {
            accounts: chosen,
            kinds: REPORTED_KINDS,
            bucketSize: config.collectors.billing.bucketSize,
            ...window,
          }),
          savings: mine(await savingsOverlapping(database, window)),
          stops: mine(await stopsDecidedIn(database, window)),
          names: await namedResources(database),
        });
        process.stdout.write(formatReport(report, options.format));
      });
    });
}

function checkedTimeZone(zone: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone;
  } catch {
    throw new UsageError(`report: --time-zone "${zone}": not an IANA time zone (such as UTC or Europe/Berlin)`);
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const LOCAL_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/;
const ZONED_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * A window's end as given: a date is its local midnight in `timeZone`, a time without an offset
 * is read in `timeZone` (on a day that changes the clocks, counted from local midnight), a time
 * with `Z` or an offset is that instant.
 */
export function parseReportTime(flag: string, text: string, timeZone: string): number {
  const wrong = () =>
    new UsageError(
      `report: ${flag} "${text}": expected an ISO date (2026-11-02) or time (2026-11-02T08:00, 2026-11-02T08:00:00Z)`,
    );
  const local = DATE.exec(text) ?? LOCAL_TIME.exec(text);
  if (local) {
    const [y = 0, m = 0, d = 0, h = 0, min = 0, s = 0] = local.slice(1).map((part) => Number(part ?? 0));
    if (!validDate(y, m, d) || h > 23 || min > 59 || s > 59) throw wrong();
    return localMidnight(y, m, d, timeZone) + ((h * 60 + min) * 60 + s) * 1000;
  }
  const at = ZONED_TIME.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) throw wrong();
  return at;
}

function validDate(year: number, month: number, day: number): boolean {
  const iso = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  return month >= 1 && month <= 12 && day >= 1 && toIso(Date.UTC(year, month - 1, day)).startsWith(iso);
}
