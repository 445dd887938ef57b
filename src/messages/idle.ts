import { formatClock, formatDateTime, formatElapsed, formatUsd, formatUsdPerHour } from '../format.js';
import type {
  IdleBlastRadiusDetails,
  IdleClusterDetails,
  IdleDetails,
  IdleNotStoppedDetails,
} from '../rules/finding-details.js';
import { IGNORE_ENV } from '../rules/idle-match.js';
import { silenceBlock, silenceCommand, snoozeCommand, whyCommand } from './commands.js';
import type { AlertData, AlertView, Block, RenderContext } from './view.js';

/** Idle mails: idle since where the evidence starts, the cost, the stop, how to keep it running. */

const perDay = (perHour: number) => `${formatUsd(perHour * 24)}/day`;

/**
 * The earliest stop a warning written at `now` may promise: the stop waits the lead time after the
 * SMTP server accepted the warning, so it never precedes max(planned stop, now + lead time).
 */
function earliestStop(d: IdleDetails, now: number): number | null {
  return d.stopAt === null ? null : Math.max(d.stopAt, now + (leadOf(d) ?? 0));
}

/** The lead time a warning names; an alert stored without it counts it from the warning. */
const leadOf = (d: IdleDetails) =>
  d.warnLeadMs ?? (d.stopAt !== null && d.warnedAt !== null ? d.stopAt - d.warnedAt : null);

const LOCKED = 'Its owner locked it in RunPod, so podwarden will not stop it: stop it yourself if you do not need it.';
const podWithId = (d: { podName: string; podId: string }) =>
  d.podName === d.podId ? d.podId : `${d.podName} (${d.podId})`;

export function idleView(alert: AlertData, d: IdleDetails, ctx: RenderContext): AlertView {
  const zone = ctx.timeZone;
  const idleFor = formatElapsed(d.evaluatedAt - d.idleSince);
  const cost = `${formatUsdPerHour(d.costPerHr)} (${perDay(d.costPerHr)})`;
  const gpus = d.gpuTypeId ? ` on ${d.gpuCount ?? 1}× ${d.gpuTypeId}` : '';
  const since = `since ${formatDateTime(d.idleSince, zone)} (${idleFor})`;
  const what = d.stage === 'held' ? 'has held GPU memory with no GPU work' : 'has done no GPU work';
  const name = d.podName;
  let headline: string;
  let title = d.stage === 'held' ? `Pod ${name} held idle` : `Pod ${name} idle`;
  const lead = [`Pod ${podWithId(d)}${gpus} ${what} ${since} and costs ${cost}.`];
  const earliest = earliestStop(d, ctx.now);

  switch (d.stage) {
    case 'idle':
    case 'held':
      headline =
        d.stage === 'held'
          ? `Pod ${name} idle ${idleFor} with GPU memory held, ${formatUsdPerHour(d.costPerHr)}`
          : `Pod ${name} idle ${idleFor} at ${formatUsdPerHour(d.costPerHr)} (${perDay(d.costPerHr)})`;
      lead.push(
        d.locked
          ? LOCKED
          : d.stage === 'held'
            ? 'A model is probably still loaded but nothing uses it: stop the Pod if the work is done.'
            : 'Stop it if you do not need it.',
      );
      break;
    case 'warn': {
      const lead_ = leadOf(d);
      if (earliest === null || d.locked) {
        headline = `Pod ${name} idle ${idleFor} at ${formatUsdPerHour(d.costPerHr)}`;
        lead.push(d.locked ? LOCKED : 'This rule does not stop Pods: stop it yourself if you do not need it.');
      } else if (d.dryRun) {
        headline = `Pod ${name} would be stopped at ${formatClock(earliest, zone)} or later (dry run), idle ${idleFor}`;
        lead.push(
          `Its rule runs in dry-run mode, so nothing will be stopped; it would be at the earliest at ${formatDateTime(earliest, zone)}${lead_ === null ? '' : `, ${formatElapsed(lead_)} after this ${ctx.medium ?? 'mail'} reaches you`}, saving ${formatUsdPerHour(d.savingPerHr)}.`,
        );
      } else {
        headline = `Pod ${name} will be stopped at ${formatClock(earliest, zone)} or later, idle ${idleFor}`;
        lead.push(
          `Unless it gets busy, podwarden stops it at the earliest at ${formatDateTime(earliest, zone)}${lead_ === null ? '' : `: never sooner than ${formatElapsed(lead_)} after this ${ctx.medium ?? 'mail'} reaches you`}. To keep it running, ${ctx.links ? 'use a Keep running link below' : 'snooze it (command below)'}.`,
        );
      }
      break;
    }
    case 'stop': {
      const at = formatDateTime(d.decidedAt ?? d.evaluatedAt, zone);
      title = `Pod ${name} stopped`;
      if (d.dryRun) {
        headline = `Pod ${name} would have been stopped (dry run) after ${idleFor} idle`;
        lead.push(
          `Its rule runs in dry-run mode: no stop was sent at ${at}; stopping would save ${formatUsdPerHour(d.savingPerHr)}.`,
        );
      } else {
        headline = `Pod ${name} stopped after ${idleFor} idle, saving ${formatUsdPerHour(d.savingPerHr)}`;
        lead.push(
          `podwarden stopped it at ${at}, which saves ${formatUsdPerHour(d.savingPerHr)} (${perDay(d.savingPerHr)}); its disk is kept. Start it again from the RunPod console when you need it.`,
        );
      }
      break;
    }
  }

  const rows: [string, string][] = [
    ['Idle since', `${formatDateTime(d.idleSince, zone)} (${idleFor})`],
    ['Cost', cost],
    ['Stopping saves', `${formatUsdPerHour(d.savingPerHr)} (the stopped disk costs the rest)`],
  ];
  if (d.locked) rows.push(['Stops', 'never: locked in RunPod by its owner']);
  else if (earliest !== null && d.stage !== 'stop')
    rows.push([d.dryRun ? 'Would stop, at the earliest' : 'Stops, at the earliest', formatDateTime(earliest, zone)]);
  if (d.decidedAt !== null)
    rows.push([d.dryRun ? 'Would have stopped at' : 'Stopped at', formatDateTime(d.decidedAt, zone)]);
  rows.push(['Why idle', d.reason], ['Idle rule', d.idleRule], ['Account', alert.account]);

  const blocks: Block[] = [];
  if (d.utilization) {
    const u = d.utilization;
    const span = { type: 'spark' as const, from: formatClock(u.from, zone), to: formatClock(u.to, zone) };
    blocks.push({
      ...span,
      label: `GPU use over the last ${formatElapsed(u.to - u.from)} (idle at or below ${u.threshold}%)`,
      values: u.gpu,
      threshold: u.threshold,
    });
    if (d.stage === 'held') {
      blocks.push({ ...span, label: 'GPU memory in use over the same window', values: u.memory, threshold: -1 });
    }
  }
  blocks.push({ type: 'table', rows });
  const items = [];
  // A locked Pod runs on whatever podwarden does: there is nothing to postpone or exclude.
  if (d.stage !== 'stop' && !d.locked) {
    items.push({ label: 'Keep it running for 4 hours', command: snoozeCommand(ctx.commandLine, d.podId, '4h') });
  }
  items.push(
    { label: 'See why podwarden judges it idle', command: whyCommand(ctx.commandLine, d.podId) },
    {
      label: 'Silence alerts about this Pod for 2h',
      command: silenceCommand(ctx.commandLine, alert.rule, alert.labels, '2h', `${name} is expected to idle`),
    },
  );
  blocks.push({ type: 'commands', title: 'Commands', items });
  if (d.stage !== 'stop' && !d.locked)
    blocks.push({ type: 'note', text: `To exclude the Pod for good, set ${IGNORE_ENV}=true in its environment.` });
  return { headline, title, tone: d.stage === 'warn' || d.stage === 'stop' ? 'warning' : 'info', lead, blocks };
}

export function notStoppedView(alert: AlertData, d: IdleNotStoppedDetails, ctx: RenderContext): AlertView {
  const name = d.podName;
  const scarce = d.why === 'scarce';
  return {
    headline: scarce
      ? `Pod ${name} idle at ${formatUsdPerHour(d.costPerHr)} but not stopped: its GPU is scarce`
      : `Pod ${name} could not be stopped (${formatUsdPerHour(d.costPerHr)})`,
    title: scarce ? `Pod ${name} not stopped` : `Pod ${name} stop failing`,
    tone: scarce ? 'warning' : 'critical',
    lead: scarce
      ? [
          `podwarden did not stop Pod ${podWithId(d)}, which costs ${formatUsdPerHour(d.costPerHr)}: ${d.detail}.`,
          'Stop it yourself if you will not need that GPU again soon.',
        ]
      : [
          `podwarden tried to stop Pod ${podWithId(d)}, which costs ${formatUsdPerHour(d.costPerHr)} (${perDay(d.costPerHr)}), and failed: ${d.detail}.`,
          'Stop it from the RunPod console.',
        ],
    blocks: [
      {
        type: 'commands',
        title: 'Commands',
        items: [
          { label: 'See what podwarden tried', command: whyCommand(ctx.commandLine, d.podId) },
          {
            label: 'Silence alerts about this Pod for 2h',
            command: silenceCommand(ctx.commandLine, alert.rule, alert.labels, '2h', 'handled'),
          },
        ],
      },
    ],
  };
}

export function blastRadiusView(alert: AlertData, d: IdleBlastRadiusDetails, ctx: RenderContext): AlertView {
  return {
    headline: `Idle rule ${d.idleRule} held back: it would stop ${d.podIds.length} Pods at once`,
    title: `Idle rule ${d.idleRule} held back`,
    tone: 'critical',
    lead: [
      `Idle rule ${d.idleRule} found ${d.podIds.length} Pods to stop in one go, more than its limit allows (${d.detail}), so it stopped none.`,
      'Check that these Pods really are idle; raise the limit if this is expected.',
    ],
    blocks: [
      { type: 'list', title: 'Pods it would stop', items: d.podIds },
      silenceBlock(ctx.commandLine, alert, 'Silence this for 2h', '2h', 'checked'),
    ],
  };
}

export function clusterView(alert: AlertData, d: IdleClusterDetails, ctx: RenderContext): AlertView {
  return {
    headline: `Cluster ${d.clusterId}: all ${d.podIds.length} Pods idle at ${formatUsdPerHour(d.costPerHr)}`,
    title: `Cluster ${d.clusterId} idle`,
    tone: 'info',
    lead: [
      `Every Pod of cluster ${d.clusterId} is idle; together they cost ${formatUsdPerHour(d.costPerHr)} (${perDay(d.costPerHr)}).`,
      'podwarden never stops a cluster: stop it yourself if the work is done.',
    ],
    blocks: [
      { type: 'list', title: 'Idle Pods', items: d.podIds },
      silenceBlock(ctx.commandLine, alert, 'Silence this for 2h', '2h', 'expected'),
    ],
  };
}
