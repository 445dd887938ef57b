import { formatDateTime, formatElapsed, formatUsd, formatUsdPerHour } from '../format.js';
import type { WasteDetails } from '../rules/finding-details.js';
import { silenceBlock } from './commands.js';
import { capitalize } from './text.js';
import type { AlertData, AlertView, Block, RenderContext } from './view.js';

/** Waste mails: a duration the stored data only vouches for in part is "over" that. */
export function wasteView(alert: AlertData, d: WasteDetails, ctx: RenderContext): AlertView {
  const zone = ctx.timeZone;
  const duration = `${d.sinceIsLowerBound ? 'over ' : ''}${formatElapsed(d.evaluatedAt - d.since)}`;
  const since = `${d.sinceIsLowerBound ? 'at least since' : 'since'} ${formatDateTime(d.since, zone)} (${duration})`;
  const perDay = d.costPerDay === null ? null : `${formatUsd(d.costPerDay)}/day`;
  const paid =
    d.paidSoFar === null ? '' : `, ${d.sinceIsLowerBound ? 'at least ' : ''}${formatUsd(d.paidSoFar)} so far`;
  const name = d.resourceName === d.resourceId ? d.resourceId : `${d.resourceName} (${d.resourceId})`;
  let headline: string;
  let title: string;
  let what: string;
  switch (d.check) {
    case 'endpoint-idle':
      if (d.workersMin === 0) {
        // Workers meant to scale to zero that do not: billed, not chosen.
        headline = `Endpoint ${d.resourceName}: ${workers(d.workersUp ?? 0)} idle for ${duration}, ${perDay ?? 'cost not billed yet'}, not scaling to zero`;
        title = `Endpoint ${d.resourceName} not scaling to zero`;
        what = `Endpoint ${name} has minimum workers 0, yet ${workers(d.workersUp ?? 0)} stayed up with no work ${since}`;
        break;
      }
      headline = `Endpoint ${d.resourceName}: ${workers(d.workersUp ?? 0)} idle for ${duration}, ${perDay ?? 'cost not billed yet'}`;
      title = `Endpoint ${d.resourceName} idle workers`;
      what = `Endpoint ${name} has kept ${workers(d.workersUp ?? 0)} up with no work ${since}`;
      break;
    case 'volume-unmounted':
      headline = `Network volume ${d.resourceName} (${d.sizeGb} GB) unmounted ${duration}, ${perDay}`;
      title = `Network volume ${d.resourceName} unmounted`;
      what = `No Pod has mounted network volume ${name} (${d.sizeGb} GB) ${since}`;
      break;
    case 'stopped-pod-volume':
      headline = `Pod ${d.resourceName} stopped ${duration}, its ${d.sizeGb} GB disk still bills ${perDay}`;
      title = `Stopped Pod ${d.resourceName} disk`;
      what = `Pod ${name} has been stopped ${since} and still pays for its ${d.sizeGb} GB disk`;
      break;
    case 'stuck-starting':
      if (d.podStatus !== undefined && d.podStatus !== 'RUNNING') {
        headline = `Pod ${d.resourceName} ${d.podStatus} for ${duration}, billed ${formatUsdPerHour(d.costPerHour ?? 0)} without running`;
        title = `Pod ${d.resourceName} stuck ${d.podStatus.toLowerCase()}`;
        what = `Pod ${name} has been billed while ${d.podStatus} ${since} and has not reached RUNNING`;
        break;
      }
      headline = `Pod ${d.resourceName} running with no runtime data for ${duration} at ${formatUsdPerHour(d.costPerHour ?? 0)}`;
      title = `Pod ${d.resourceName} without runtime data`;
      what = `Pod ${name} is RUNNING but has reported no runtime data ${since}`;
      break;
  }
  const rows: [string, string][] = [];
  if (d.costPerHour !== null) rows.push(['Cost', `${formatUsdPerHour(d.costPerHour)}${perDay ? ` (${perDay})` : ''}`]);
  if (d.paidSoFar !== null)
    rows.push(['Paid so far', `${d.sinceIsLowerBound ? 'at least ' : ''}${formatUsd(d.paidSoFar)}`]);
  rows.push(['Since', `${formatDateTime(d.since, zone)} (${duration})`]);
  if (d.sizeGb !== null) rows.push(['Size', `${d.sizeGb} GB`]);
  if (d.workersUp !== null) rows.push(['Workers up', `${d.workersUp} (minimum ${d.workersMin ?? 0})`]);
  rows.push(['Account', alert.account]);
  const blocks: Block[] = [
    { type: 'table', rows },
    silenceBlock(ctx.commandLine, alert, 'Silence this for 7 days', '7d', `${d.resourceName} is kept on purpose`),
  ];
  const costs = perDay === null ? '' : `, costing ${perDay}${paid}`;
  return {
    headline,
    title,
    tone: alert.severity === 'info' ? 'info' : 'warning',
    lead: [`${what}${costs}.`, `${capitalize(d.hint)}.`],
    blocks,
  };
}

function workers(count: number): string {
  return `${count} worker${count === 1 ? '' : 's'}`;
}
