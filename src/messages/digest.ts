import type { DigestNotice, DigestSaving } from '../alerts/notices.js';
import { groupBy } from '../db/group-by.js';
import {
  formatDateTime,
  formatElapsed,
  formatPercent,
  formatUsd,
  formatUsdBrief,
  formatUsdPerHour,
} from '../format.js';
import { type BudgetDetails, detailsOf } from '../rules/finding-details.js';
import { alertView } from './alert-view.js';
import { BARE_COMMAND_LINE, type CommandLine } from './commands.js';
import { describeHeld } from './decisions.js';
import { savedSoFarLines } from './digest-savings.js';
import { accountSubject } from './email.js';
import { teamSpendTables } from './team-spend.js';
import { capitalize } from './text.js';
import type { AlertData, Block, EmailView, RenderContext, TableBlock } from './view.js';

/** The daily digest: recurring things are said here once a day instead of in a mail each. */

type Row = [string, string];

/** What an open alert costs a day while it lasts; null for what has no running cost (budgets…). */
export function costPerDayOf(alert: AlertData): number | null {
  const { details } = alert;
  const waste = detailsOf(details, 'waste');
  if (waste) return waste.costPerDay ?? (waste.costPerHour === null ? null : waste.costPerHour * 24);
  const idle =
    detailsOf(details, 'idle') ?? detailsOf(details, 'idle-not-stopped') ?? detailsOf(details, 'idle-cluster');
  return idle ? idle.costPerHr * 24 : null;
}

function costWords(alert: AlertData, ctx: RenderContext): string {
  const idle = detailsOf(alert.details, 'idle');
  if (idle) {
    const held = idle.stage === 'held' ? ' with GPU memory held' : '';
    const stop =
      idle.stopAt === null
        ? ''
        : `; ${idle.dryRun ? 'would be stopped (dry run)' : 'to be stopped'} ${formatDateTime(idle.stopAt, ctx.timeZone)}`;
    return `idle ${formatElapsed(ctx.now - idle.idleSince)}${held}, ${formatUsdPerHour(idle.costPerHr)} (${formatUsd(idle.costPerHr * 24)}/day)${stop}`;
  }
  const waste = detailsOf(alert.details, 'waste');
  if (waste) {
    const perDay = costPerDayOf(alert);
    const span = `${waste.sinceIsLowerBound ? 'over ' : ''}${formatElapsed(ctx.now - waste.since)}`;
    return `${perDay === null ? 'cost not billed yet' : `${formatUsd(perDay)}/day`} for ${span}`;
  }
  const perDay = costPerDayOf(alert);
  return perDay === null ? alert.summary : `${formatUsd(perDay)}/day`;
}

/** One row per budget: the alert of its highest threshold says where spend stands. */
function budgetRows(alerts: readonly AlertData[]): Row[] {
  const budgets = alerts.flatMap((alert) => detailsOf(alert.details, 'budget') ?? []);
  const latest = (a: BudgetDetails, b: BudgetDetails) => b.evaluatedAt - a.evaluatedAt || b.threshold - a.threshold;
  return firstPer(budgets, (d) => d.budget, latest).map((d) => [
    `${d.budget} (${d.period.label})`,
    `${formatUsd(d.live)} of ${formatUsdBrief(d.amount)} (${formatPercent(d.live / d.amount)}); ${formatUsd(d.forecastAtCurrentRate)} by the end of the ${d.period.kind} at the current ${formatUsdPerHour(d.currentPerHour)}`,
  ]);
}

function savingRow(saving: DigestSaving, timeZone: string): Row {
  const what = saving.dryRun ? 'would have saved' : 'saved';
  const still = saving.ongoing ? (saving.dryRun ? ', still idle' : ', still stopped') : '';
  return [
    saving.podName,
    `${saving.dryRun ? 'stop decided (dry run)' : 'stopped'} ${formatDateTime(saving.decidedAt, timeZone)}; ${formatElapsed(saving.notBilledMs)} at ${formatUsdPerHour(saving.savingPerHr)}${still}: ${what} ${formatUsd(saving.saved)}`,
  ];
}

function total(savings: readonly DigestSaving[], dryRun: boolean): number {
  return savings.filter((saving) => saving.dryRun === dryRun).reduce((sum, saving) => sum + saving.saved, 0);
}

export function digestView(notice: DigestNotice, commandLine: CommandLine = BARE_COMMAND_LINE): EmailView {
  const ctx: RenderContext = { now: notice.now, timeZone: notice.timeZone, commandLine };
  const budgets = notice.open.filter((alert) => alert.rule === 'budget');
  const idle = latestPerPod(notice.open);
  const waste = notice.open.filter((alert) => detailsOf(alert.details, 'waste'));
  const listed = new Set([...budgets, ...waste]);
  const others = notice.open.filter((alert) => !listed.has(alert) && !detailsOf(alert.details, 'idle'));
  const budgetLines = budgetRows(budgets);
  const openCount = budgetLines.length + idle.length + waste.length + others.length + notice.flapping.length;
  const atStake =
    [...idle, ...waste, ...others].reduce((sum, alert) => sum + (costPerDayOf(alert) ?? 0), 0) +
    notice.flapping.reduce((sum, flap) => sum + (flap.costPerDay ?? 0), 0);
  const saved = total(notice.savings, false);
  const wouldHave = total(notice.savings, true);

  const subjectParts = [`${openCount} open`];
  if (atStake > 0) subjectParts.push(`${brief(atStake)}/day at stake`);
  if (saved > 0) subjectParts.push(`saved ${brief(saved)}`);
  if (wouldHave > 0) subjectParts.push(`would have saved ${brief(wouldHave)}`);
  const subject = accountSubject([notice.account], `Daily: ${subjectParts.join(', ')}`);

  const sinceWords = notice.sinceLastDigest
    ? `since the last digest (${formatDateTime(notice.since, notice.timeZone)})`
    : 'in the last 24 hours';
  const lead = [
    openCount === 0
      ? `Nothing is open in account ${notice.account}.`
      : `${openCount} thing${openCount === 1 ? ' is' : 's are'} still open in account ${notice.account}${atStake > 0 ? `, costing about ${formatUsd(atStake)}/day while they last` : ''}.`,
  ];
  if (saved > 0 || wouldHave > 0) {
    const parts = [
      ...(saved > 0 ? [`podwarden's stops saved ${formatUsd(saved)}`] : []),
      ...(wouldHave > 0
        ? [`${saved > 0 ? 'its' : "podwarden's"} dry-run stops would have saved ${formatUsd(wouldHave)}`]
        : []),
    ];
    lead.push(`${capitalize(sinceWords)}, ${parts.join(' and ')}.`);
  }
  lead.push(...savedSoFarLines(notice.savedSoFar));

  // A table for each kind of finding there is, in this order.
  const tables: Array<[string, Row[]]> = [
    ['Budgets', budgetLines],
    ...teamSpendTables(notice.teamSpend),
    [
      'Idle Pods',
      idle.map((alert) => [
        detailsOf(alert.details, 'idle')?.podName ?? alertView(alert, ctx).title,
        costWords(alert, ctx),
      ]),
    ],
    ['Waste', waste.map((alert) => rowOf(alert, ctx))],
    [
      'Flapping (not mailed one by one)',
      notice.flapping.map((flap) => [
        flap.labels.pod_name ??
          alertView({ ...flap, severity: 'info', firedAt: flap.since, resolvedAt: null }, ctx).title,
        `holds ~${formatElapsed(Math.round(flap.heldPerHourMs / 60_000) * 60_000)} of every hour${flap.costPerDay === null ? '' : `: ~${formatUsd(flap.costPerDay)}/day`}, fired ${flap.fires} times in ${formatElapsed(flap.windowMs)}`,
      ]),
    ],
    ['Also open', others.map((alert) => rowOf(alert, ctx))],
    [`What the stops saved ${sinceWords}`, notice.savings.map((saving) => savingRow(saving, notice.timeZone))],
  ];
  const blocks: Block[] = tables
    .filter(([, rows]) => rows.length > 0)
    .map(([title, rows]): TableBlock => ({ type: 'table', title, rows }));
  const held = notice.held ?? [];
  if (held.length > 0) {
    blocks.push({
      type: 'list',
      title: 'Kept running and silenced by people',
      items: held.map((decision) => describeHeld(decision, notice.timeZone)),
    });
  }
  return {
    subject,
    tone: 'info',
    heading: `Daily digest for account ${notice.account}`,
    lead,
    blocks,
    sections: [],
    actions: [],
    footer: [
      `podwarden · daily digest · ${formatDateTime(notice.now, notice.timeZone)}`,
      `Account ${notice.account} · sent to ${notice.recipients.join(', ')}`,
    ],
  };
}

/** Whole dollars in a subject once they are many; cents while they are few, so $0.07 is not "$0". */
function brief(amount: number): string {
  return amount >= 10 ? formatUsdBrief(Math.round(amount)) : formatUsd(amount);
}

const STAGES = ['idle', 'held', 'warn', 'stop'];

/** One row per idle Pod, of its furthest stage: a Pod can have several idle alerts open. */
function latestPerPod(alerts: readonly AlertData[]): AlertData[] {
  const idle = alerts.flatMap((alert) => {
    const d = detailsOf(alert.details, 'idle');
    return d ? [{ alert, rank: STAGES.indexOf(d.stage), podId: d.podId }] : [];
  });
  const furthest = (a: (typeof idle)[number], b: (typeof idle)[number]) =>
    b.rank - a.rank || b.alert.firedAt - a.alert.firedAt;
  return firstPer(idle, (entry) => entry.podId, furthest).map((entry) => entry.alert);
}

/** Per key, in the order keys first come, the item `before` sorts first (the first given on a tie). */
function firstPer<T>(items: readonly T[], key: (item: T) => string, before: (a: T, b: T) => number): T[] {
  return [...groupBy(items, key).values()].map((group) => group.sort(before)[0] as T);
}

function rowOf(alert: AlertData, ctx: RenderContext): Row {
  return [alertView(alert, ctx).title, costWords(alert, ctx)];
}
