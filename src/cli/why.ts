import { Command, InvalidArgumentError } from 'commander';
import { toIso } from '../clock.js';
import { loadConfig } from '../config/load.js';
import { accountsOfPod, knownPodIds, podSnoozesAfter } from '../db/idle-state.js';
import { idleEvidence, type ReceiptRecord, recentReceipts } from '../db/receipts.js';
import { formatDuration } from '../duration.js';
import { formatSparkline } from '../format.js';
import { describeSource } from '../messages/decisions.js';
import { controlOf, RECEIPT_DECISION_TEXT } from '../messages/receipt-decision.js';
import { didYouMean } from '../near-miss.js';
import { configOption } from './config-option.js';
import { clockNote, daemonNow } from './daemon-now.js';
import { UsageError } from './exit.js';
import { withDatabase } from './with-database.js';

interface WhyOptions {
  config?: string;
  account?: string;
  limit: number;
}

/** `podwarden why POD`: the latest idle and enforcement decisions on a Pod, each with its evidence and guards. */
export function whyCommand(): Command {
  return new Command('why')
    .description('Show why podwarden did (or did not) act on a Pod: its latest idle and enforcement receipts.')
    .argument('<pod>', 'the Pod id')
    .addOption(configOption())
    .option('--account <name>', 'only this account')
    .option('--limit <n>', 'how many receipts (default 5)', positiveInt, 5)
    .action(async (podId: string, options: WhyOptions) => {
      const config = loadConfig({ path: options.config, env: process.env });
      const accounts = config.accounts.map((account) => account.name);
      if (options.account !== undefined && !accounts.includes(options.account)) {
        throw new UsageError(
          `why ${podId}: --account ${options.account}: no such account${didYouMean(options.account, accounts)}; configured accounts: ${accounts.join(', ')}`,
        );
      }
      // Read-only: works on a database podwarden may not write (another user's, a read-only mount).
      await withDatabase(config.database.path, { readonly: true }, async (database) => {
        const receipts = (await recentReceipts(database, options.limit, { podId, account: options.account })).reverse();
        const clock = await daemonNow(database);
        const snoozes = (await podSnoozesAfter(database, podId, clock.now)).filter(
          (snooze) => options.account === undefined || snooze.account === options.account,
        );
        const seen = (await accountsOfPod(database, podId)).some(
          (a) => options.account === undefined || a === options.account,
        );
        if (!seen && receipts.length === 0 && snoozes.length === 0) {
          throw unknownPod(podId, await knownPodIds(database, options.account), options.account);
        }
        if (receipts.length === 0) process.stdout.write(`${podId}: no idle decisions recorded\n`);
        else process.stdout.write(receipts.map(describe).join('\n'));
        // What holds the next decision back, after the last ones: the answer to "why not yet?".
        for (const snooze of snoozes) {
          process.stdout.write(
            `${podId} (${snooze.account}): snoozed until ${toIso(snooze.until)}${clockNote(clock)} ${describeSource(snooze.source, snooze.createdBy)}: no idle warning or stop before then\n`,
          );
        }
      });
    });
}

/** At most this many Pod ids are listed in an error: enough to spot a typo, not a screenful. */
const LISTED_PODS = 20;

/** A Pod id no account (or not the one asked about) has seen, with what exists instead. */
function unknownPod(podId: string, known: string[], account: string | undefined): UsageError {
  const who = account === undefined ? 'no account has seen this Pod' : `account ${account} has not seen this Pod`;
  const listed = known.slice(0, LISTED_PODS).join(', ');
  const more = known.length > LISTED_PODS ? ` and ${known.length - LISTED_PODS} more` : '';
  const which = known.length === 0 ? 'no Pods polled yet' : `known Pods: ${listed}${more}`;
  return new UsageError(`why ${podId}: ${who}${didYouMean(podId, known)}; ${which}`);
}

function positiveInt(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`expected a whole number ≥ 1, got "${text}"`);
  return n;
}

const hhmm = (ms: number) => toIso(ms).slice(11, 16);
const money = (usd: number) => `$${usd.toFixed(2)}/h`;

/** One receipt, in a few lines: decision, the window's GPU sparkline, money, guards. */
export function describe(receipt: ReceiptRecord): string {
  const evidence = idleEvidence(receipt.evidence);
  const head = `${toIso(receipt.decidedAt)}  ${receipt.podName} (${receipt.podId}, ${receipt.account}), ${controlOf(receipt)}: ${RECEIPT_DECISION_TEXT[receipt.decision]}`;
  const lines = [head];
  if (receipt.reason) lines.push(`  reason: ${receipt.reason}`);
  if (receipt.plannedStopAt !== null && (receipt.decision === 'warned' || receipt.decision === 'extended')) {
    lines.push(`  stop planned at ${toIso(receipt.plannedStopAt)}${receipt.dryRun ? ' (dry run)' : ''}`);
  }
  if (evidence && evidence.samples.length > 0) {
    const t = evidence.thresholds;
    const values = evidence.samples.map((sample) => sample.gpuUtil);
    lines.push(
      `  GPU ${hhmm(evidence.windowFrom)} ${formatSparkline(values)} ${hhmm(evidence.windowTo)}  ` +
        `(${evidence.samples.length} samples, ${evidence.idleSamples} idle, idle coverage ${Math.floor(evidence.coverage * 100)}%` +
        `${evidence.held ? ', GPU memory held' : ''})`,
    );
    lines.push(
      `  thresholds: GPU ≤ ${t.utilThreshold}% over ${formatDuration(t.windowMs)}, coverage ≥ ${Math.round(t.coverage * 100)}% and ${t.minSamples} samples, grace ${formatDuration(t.graceMs)}`,
    );
  }
  lines.push(`  cost ${money(receipt.costPerHr)}, saving when stopped ${money(receipt.savingPerHr)}`);
  for (const guard of receipt.guards) lines.push(`  ${guard.passed ? 'pass' : 'FAIL'} ${guard.guard}: ${guard.detail}`);
  return `${lines.join('\n')}\n`;
}
