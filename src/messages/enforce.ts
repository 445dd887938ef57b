import { formatClock, formatDateTime, formatElapsed, formatUsd, formatUsdPerHour } from '../format.js';
import type { EnforceBlastRadiusDetails, EnforceDetails } from '../rules/finding-details.js';
import { IGNORE_ENV } from '../rules/idle-match.js';
import { silenceBlock, silenceCommand, snoozeCommand, whyCommand } from './commands.js';
import type { AlertData, AlertView, Block, RenderContext } from './view.js';

/**
 * Mails of the enforcement ladder (deadlines, schedules, budget caps): the Pod, the control and its
 * reason, when the stop comes, and how to keep the Pod running.
 */

const KIND_TEXT: Record<EnforceDetails['enforceKind'], string> = {
  deadline: 'Deadline',
  schedule: 'Schedule',
  budget_cap: 'Budget cap',
};
const perDay = (perHour: number) => `${formatUsd(perHour * 24)}/day`;
const podWithId = (d: EnforceDetails) => (d.podName === d.podId ? d.podId : `${d.podName} (${d.podId})`);

/** The earliest stop a warning may promise: never sooner than the lead time after it reaches someone. */
const earliestStop = (d: EnforceDetails, now: number) => Math.max(d.stopAt, now + d.warnLeadMs);

export function enforceView(alert: AlertData, d: EnforceDetails, ctx: RenderContext): AlertView {
  const zone = ctx.timeZone;
  const name = d.podName;
  const control = `${KIND_TEXT[d.enforceKind].toLowerCase()} ${d.control}`;
  const gpus = d.gpuTypeId ? ` on ${d.gpuCount ?? 1}× ${d.gpuTypeId}` : '';
  const lead = [
    `Pod ${podWithId(d)}${gpus} costs ${formatUsdPerHour(d.costPerHr)} (${perDay(d.costPerHr)}); ${control}: ${d.why}.`,
  ];
  let headline: string;
  let title = `Pod ${name}: ${control}`;
  const earliest = earliestStop(d, ctx.now);
  if (d.stage === 'not-stopped') {
    title = `Pod ${name} not stopped`;
    headline = `Pod ${name} could not be stopped (${control})`;
    lead.push(`The stop request failed: ${d.detail ?? 'unknown error'}. Stop it yourself if it should not run.`);
  } else if (d.stage === 'stop') {
    const at = formatDateTime(d.decidedAt ?? d.evaluatedAt, zone);
    title = `Pod ${name} stopped`;
    if (d.dryRun) {
      headline = `Pod ${name} would have been stopped (dry run): ${KIND_TEXT[d.enforceKind].toLowerCase()}`;
      lead.push(
        `The ${control} runs in dry-run mode: no stop was sent at ${at}; stopping would save ${formatUsdPerHour(d.savingPerHr)}.`,
      );
    } else {
      headline = `Pod ${name} stopped (${KIND_TEXT[d.enforceKind].toLowerCase()}), saving ${formatUsdPerHour(d.savingPerHr)}`;
      lead.push(
        `podwarden stopped it at ${at}, which saves ${formatUsdPerHour(d.savingPerHr)} (${perDay(d.savingPerHr)}); its disk is kept. Start it again from the RunPod console when you need it.`,
      );
    }
  } else if (d.dryRun) {
    headline = `Pod ${name} would stop at ${formatClock(earliest, zone)} (dry run): ${KIND_TEXT[d.enforceKind].toLowerCase()}`;
    lead.push(
      `The ${control} runs in dry-run mode, so nothing will be stopped; it would be at the earliest at ${formatDateTime(earliest, zone)}, ${formatElapsed(d.warnLeadMs)} after this ${ctx.medium ?? 'mail'} reaches you at the soonest.`,
    );
  } else {
    headline = `Pod ${name} stops at ${formatClock(earliest, zone)} or later: ${KIND_TEXT[d.enforceKind].toLowerCase()}`;
    lead.push(
      `podwarden stops it at the earliest at ${formatDateTime(earliest, zone)}: never sooner than ${formatElapsed(d.warnLeadMs)} after this ${ctx.medium ?? 'mail'} reaches you. To keep it running, ${ctx.links ? 'use a Keep running link below' : 'snooze it (command below)'}.`,
    );
  }
  const rows: [string, string][] = [
    ...(d.enforceKind === 'deadline'
      ? [['Running since', formatDateTime(d.occurrence, zone)] as [string, string]]
      : []),
    ['Cost', `${formatUsdPerHour(d.costPerHr)} (${perDay(d.costPerHr)})`],
    ['Stopping saves', `${formatUsdPerHour(d.savingPerHr)} (the stopped disk costs the rest)`],
  ];
  if (d.stage === 'warn')
    rows.push([d.dryRun ? 'Would stop, at the earliest' : 'Stops, at the earliest', formatDateTime(earliest, zone)]);
  if (d.extendedMs > 0) rows.push(['Moved later by Keep running', formatElapsed(d.extendedMs)]);
  if (d.decidedAt !== null)
    rows.push([d.dryRun ? 'Would have stopped at' : 'Stopped at', formatDateTime(d.decidedAt, zone)]);
  rows.push([KIND_TEXT[d.enforceKind], d.control], ['Account', alert.account]);
  const blocks: Block[] = [{ type: 'table', rows }];
  const items = [];
  if (d.stage === 'warn') {
    items.push({ label: 'Keep it running for 4 hours', command: snoozeCommand(ctx.commandLine, d.podId, '4h') });
  }
  items.push(
    { label: 'See why podwarden acts on it', command: whyCommand(ctx.commandLine, d.podId) },
    {
      label: 'Silence alerts about this Pod for 2h',
      command: silenceCommand(ctx.commandLine, alert.rule, alert.labels, '2h', `${name} is expected to run`),
    },
  );
  blocks.push({ type: 'commands', title: 'Commands', items });
  if (d.stage === 'warn')
    blocks.push({ type: 'note', text: `To exclude the Pod for good, set ${IGNORE_ENV}=true in its environment.` });
  return { headline, title, tone: d.stage === 'not-stopped' ? 'critical' : 'warning', lead, blocks };
}

export function enforceBlastRadiusView(alert: AlertData, d: EnforceBlastRadiusDetails, ctx: RenderContext): AlertView {
  return {
    headline: `Deadlines and schedules held back: they would stop ${d.podIds.length} Pods at once`,
    title: 'Deadlines and schedules held back',
    tone: 'critical',
    lead: [
      `Deadlines and schedules found ${d.podIds.length} Pods of ${alert.account} to stop in one go, more than enforce.caps allows (${d.detail}), so none was stopped.`,
      'Check the match of the deadlines and schedules that select them; raise the limit if this is expected.',
    ],
    blocks: [
      { type: 'list', title: 'Pods it would stop', items: d.podIds },
      silenceBlock(ctx.commandLine, alert, 'Silence this for 2h', '2h', 'checked'),
    ],
  };
}
