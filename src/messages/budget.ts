import {
  formatDateTime,
  formatElapsed,
  formatPercent,
  formatUsd,
  formatUsdBrief,
  formatUsdPerHour,
} from '../format.js';
import { severityOf } from '../rules/budget-findings.js';
import type { BudgetDetails } from '../rules/finding-details.js';
import { silenceBlock } from './commands.js';
import type { AlertData, AlertView, Block, RenderContext } from './view.js';

/** Budget mails; times are in the budget's own zone. */

const DRIVER_KIND: Record<BudgetDetails['drivers'][number]['kind'], string> = {
  account: 'Account',
  pods: 'Pod',
  serverless: 'Endpoint',
  endpoints: 'Public Endpoints',
  network_volumes: 'Network volume',
  clusters: 'Cluster',
};

/** What the figure of an alert written by an older podwarden (one alert per figure) was. */
const LEGACY_FIGURE_WORDS: Record<'actual' | 'live', string> = {
  actual: 'Billed spend',
  live: 'Spend (billed and not yet billed)',
};

export function budgetView(alert: AlertData, d: BudgetDetails, ctx: RenderContext): AlertView {
  const zone = d.timeZone;
  const at = (ms: number) => formatDateTime(ms, zone);
  const left = Math.max(0, d.period.endMs - d.evaluatedAt);
  const leftText = `${formatElapsed(left)} left in the ${d.period.kind}`;
  const amount = formatUsdBrief(d.amount);
  const current = formatUsdPerHour(d.currentPerHour);
  const ratio = d.value / d.amount;
  const isForecast = d.figure === 'forecast';

  const headline = isForecast
    ? `Budget ${d.budget} forecast ${formatUsd(d.value)} by ${d.period.kind}'s end: ${formatPercent(ratio)} of ${amount}`
    : `Budget ${d.budget} at ${formatPercent(ratio)} (${formatUsd(d.value)} of ${amount}), ${formatElapsed(left)} left`;
  const title = isForecast
    ? `Budget ${d.budget} forecast past ${d.threshold}%`
    : `Budget ${d.budget} past ${d.threshold}%`;

  const range = forecastRange(d);
  const runOut =
    d.live >= d.amount
      ? `${overBy(d)}. At the current ${current} the ${d.period.kind} ends near ${formatUsd(d.forecastAtCurrentRate)}.`
      : d.runsOutAt === null
        ? `Nothing in it is spending right now, so it does not run out at the current rate.`
        : `At the current ${current} it runs out ${at(d.runsOutAt)} (in ${formatElapsed(d.runsOutAt - d.evaluatedAt)}), with ${leftText}.`;
  const lead = isForecast
    ? [`Budget ${d.budget} (${amount} for ${d.period.label}) is heading for ${range}.`, runOut]
    : [spentSentence(d, ratio, amount), runOut];
  const top = d.drivers[0];
  if (top) lead.push(`The largest cost is ${driverLabel(top)} at ${formatUsd(top.amount)}; stop what you do not need.`);

  const rows: [string, string][] = [
    ['Billed so far', formatUsd(d.actual)],
    ['Billed and not yet billed', formatUsd(d.live)],
    ['Current rate', current],
  ];
  if (d.trailing) {
    rows.push([`Average of the last ${formatElapsed(d.trailing.windowMs)}`, formatUsdPerHour(d.trailing.perHour)]);
    rows.push([`Forecast at that average`, formatUsd(d.trailing.forecast)]);
  }
  rows.push([`Forecast at the current rate`, formatUsd(d.forecastAtCurrentRate)]);
  rows.push([
    'Runs out at the current rate',
    d.runsOutAt === null ? (d.live >= d.amount ? 'already over' : 'not at this rate') : at(d.runsOutAt),
  ]);
  rows.push(['Period', `${d.period.label}: ${at(d.period.startMs)} to ${at(d.period.endMs)}`]);
  rows.push(['Alerts at', `${d.threshold}% of ${amount}`]);
  rows.push(['Account', alert.account]);

  const blocks: Block[] = [
    {
      type: 'bar',
      label: `Spent of ${amount} (${d.period.label})`,
      ratio: d.live / d.amount,
      caption: `${formatUsd(d.live)} of ${amount}, ${leftText}`,
    },
    { type: 'table', rows },
  ];
  if (d.drivers.length > 0)
    blocks.push({ type: 'list', title: 'Largest costs this period', items: d.drivers.map(driverText) });
  blocks.push(
    silenceBlock(ctx.commandLine, alert, `Silence this budget's alerts for 24h`, '24h', `budget ${d.budget} known`),
  );
  return { headline, title, tone: severityOf(d.threshold), lead, blocks };
}

/** A difference of two figures in cents, as exact as the figures are: no float tail, no sub-cent digits. */
const cents = (amount: number) => Math.round(amount * 100) / 100;

/** Both figures and how they add up; an alert of an older podwarden names its one figure. */
function spentSentence(d: BudgetDetails, ratio: number, amount: string): string {
  const reached = `reached ${formatUsd(d.value)}, ${formatPercent(ratio)} of its ${amount} for ${d.period.label}`;
  if (d.figure === 'actual' || d.figure === 'live')
    return `${LEGACY_FIGURE_WORDS[d.figure]} on budget ${d.budget} ${reached}.`;
  if (d.value === d.actual) return `Billed spend on budget ${d.budget} ${reached}.`;
  return `Spend on budget ${d.budget} ${reached}: ${formatUsd(d.actual)} billed and ${formatUsd(cents(d.live - d.actual))} not yet billed.`;
}

/** How far over the amount each figure is: "Live spend $100.84 of $100 is over by $0.84; …". */
function overBy(d: BudgetDetails): string {
  const over = (spent: number) =>
    `${formatUsd(spent)} of ${formatUsdBrief(d.amount)} is over by ${formatUsd(cents(spent - d.amount))}`;
  if (d.actual === d.live) return `Billed spend ${over(d.actual)}`;
  const billed =
    d.actual >= d.amount
      ? `billed spend ${over(d.actual)}`
      : `billed spend is ${formatUsd(d.actual)} so far (billing lags)`;
  return `Live spend ${over(d.live)}; ${billed}`;
}

/** "$175.00 at the last 24h average ($4.94/h), $675.00 if the current $38.50/h continues". */
function forecastRange(d: BudgetDetails): string {
  const atCurrent = `${formatUsd(d.forecastAtCurrentRate)} if the current ${formatUsdPerHour(d.currentPerHour)} continues`;
  if (!d.trailing) return atCurrent;
  return `${formatUsd(d.trailing.forecast)} at the last ${formatElapsed(d.trailing.windowMs)} average (${formatUsdPerHour(d.trailing.perHour)}), ${atCurrent}`;
}

function driverLabel(driver: BudgetDetails['drivers'][number]): string {
  if (driver.kind === 'endpoints' || driver.kind === 'account') return DRIVER_KIND[driver.kind];
  const id = driver.name === driver.resourceId ? '' : ` (${driver.resourceId})`;
  return `${DRIVER_KIND[driver.kind]} ${driver.name}${id}`;
}

function driverText(driver: BudgetDetails['drivers'][number]): string {
  return `${driverLabel(driver)}: ${formatUsd(driver.amount)}`;
}
