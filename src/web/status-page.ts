import type { IdleCandidate } from '../actions/idle-status.js';
import type { AlertRecord } from '../db/alerts.js';
import {
  formatDateTime,
  formatElapsed,
  formatPercent,
  formatUsd,
  formatUsdBrief,
  formatUsdPerHour,
} from '../format.js';
import { firedAlert } from '../messages/alert-view.js';
import { type OpenAlertRow, openAlertRows } from '../messages/open-alerts.js';
import type { AlertData, AlertView } from '../messages/view.js';
import type { CollectorHealth } from '../metrics/collector-health.js';
import type { BudgetStatus } from '../rules/budget.js';
import { budgetBar } from './charts.js';
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import { podPath, receiptItem } from './receipt-view.js';
import { savingsCard } from './savings-card.js';
import { type StatusData, snoozeKey } from './status-data.js';
import { teamSpendCard } from './team-spend-card.js';

/** The forms the page offers on a candidate or an alert (they need the session's CSRF value). */
export interface StatusForms {
  keepRunning(candidate: IdleCandidate): SafeHtml;
  silence(alert: AlertRecord): SafeHtml;
}

export interface StatusPageOptions {
  timeZone: string;
  loopbackOnly: boolean;
  forms: StatusForms;
  /** A sentence at the top after a form acted ("nb-demo keeps running until 17:30"). */
  notice?: string;
}

const PHASE_TEXT: Record<IdleCandidate['phase'], string> = {
  notified: 'idle: notified',
  warned: 'warned: stop planned',
  stop_due: 'stop due',
  decided: 'decided',
};

function idleItem(candidate: IdleCandidate, options: StatusPageOptions, data: StatusData): SafeHtml {
  const zone = options.timeZone;
  const { now } = data;
  const snoozed = data.snoozedUntil.get(snoozeKey(candidate.account, candidate.podId));
  // The ladder cancels the stop at its next tick; the page says so at once.
  const stop =
    snoozed !== undefined
      ? `kept running until ${formatDateTime(snoozed, zone)}: no warning or stop before then`
      : candidate.plannedStopAt === null
        ? 'no stop planned'
        : `${candidate.dryRun ? 'would stop (dry run)' : 'stops'} ${formatDateTime(candidate.plannedStopAt, zone)}, in ${formatElapsed(candidate.msToStop ?? 0)}`;
  return html`<li>
<div class="row"><a class="name" href="${podPath(candidate.account, candidate.podId)}">${candidate.podName}</a>
<span class="tag ${snoozed !== undefined ? 'ok' : candidate.phase === 'notified' ? 'info' : 'warning'}">${snoozed !== undefined ? 'kept running' : PHASE_TEXT[candidate.phase]}</span></div>
<div class="meta">${candidate.podId} · ${candidate.account} · rule ${candidate.rule}</div>
<div>GPU idle for ${formatElapsed(now - candidate.idleSince)} · costs ${formatUsdPerHour(candidate.costPerHr)}</div>
<div><strong>${stop}</strong></div>
${options.forms.keepRunning(candidate)}
</li>`;
}

/** The copy-paste commands the email gives, folded away: the lead may point to them ("command below"). */
function commandsOf(view: AlertView): SafeHtml {
  const items = view.blocks.flatMap((block) => (block.type === 'commands' ? block.items : []));
  if (items.length === 0) return html``;
  return html`<details><summary>Commands</summary><ul class="commands">${items.map(
    (item) => html`<li>${item.label}: <code>${item.command}</code></li>`,
  )}</ul></details>`;
}

function alertItem(row: OpenAlertRow<AlertRecord & AlertData>, options: StatusPageOptions, now: number): SafeHtml {
  const { alert, view, count } = row;
  const tone = alert.severity === 'critical' ? 'critical' : alert.severity === 'warning' ? 'warning' : 'info';
  const also = count > 1 ? ` · ${count} alerts, the highest shown; Silence covers all of them` : '';
  return html`<li>
<div class="row"><span class="name">${view.headline}</span><span class="tag ${tone}">${alert.severity}</span></div>
<div>${view.lead.join(' ')}</div>
<div class="meta">${alert.rule} · ${alert.account} · firing since ${formatDateTime(alert.firedAt, options.timeZone)} (${formatElapsed(now - alert.firedAt)})${also}</div>
${commandsOf(view)}
${options.forms.silence(alert)}
</li>`;
}

function budgetItem(status: BudgetStatus, zone: string): SafeHtml {
  const low = status.forecast === null ? null : Math.min(status.forecast, status.forecastAtCurrentRate);
  const high = status.forecast === null ? null : Math.max(status.forecast, status.forecastAtCurrentRate);
  const ratio = status.amount > 0 ? status.live / status.amount : 0;
  const tone = ratio >= 1 ? 'critical' : ratio >= 0.8 ? 'warning' : 'ok';
  return html`<li>
<div class="row"><span class="name">${status.budget}</span><span class="tag ${tone}">${formatPercent(ratio)} of ${formatUsdBrief(status.amount)}</span></div>
<div class="meta">${status.account} · ${status.period.label} (${status.periodKind}, ${status.timeZone})${status.team !== undefined ? ` · team ${status.team}` : ''}${status.owner !== undefined ? ` · owner ${status.owner}` : ''}</div>
${budgetBar({ amount: status.amount, live: status.live, low, high })}
<div>${formatUsd(status.live)} spent (${formatUsd(status.actual)} billed) · now ${formatUsdPerHour(status.currentPerHour)}</div>
<div class="meta">${
    low === null || high === null
      ? 'forecast: not enough history yet'
      : `forecast by ${formatDateTime(status.period.endMs, zone)}: ${formatUsd(low)} – ${formatUsd(high)}`
  }${status.runsOutAt !== null ? ` · runs out ${formatDateTime(status.runsOutAt, zone)}` : ''}</div>
</li>`;
}

function collectorItem(health: CollectorHealth, zone: string, now: number): SafeHtml {
  const run = health.lastRun;
  const outcome = run ? (run.outcome ?? 'running') : 'never run';
  const stale = health.lastSuccessAt === null || now - health.lastSuccessAt > 2 * health.intervalMs;
  const tone = outcome === 'error' || stale ? 'critical' : outcome === 'ok' ? 'ok' : 'info';
  // A last run that went fine long ago is not "ok" now: the data is old.
  const word = stale && outcome === 'ok' ? 'stale' : outcome;
  return html`<li>
<div class="row"><span><span class="name">${health.collector}</span> <span class="meta">${health.account} · every ${formatElapsed(health.intervalMs)}</span></span><span class="tag ${tone}">${word}</span></div>
<div class="meta">${health.lastSuccessAt === null ? 'no successful run yet' : `last success ${formatDateTime(health.lastSuccessAt, zone)} (${formatElapsed(now - health.lastSuccessAt)} ago)`}</div>
${run?.error ? html`<div>${run.error}</div>` : ''}${run?.detail ? html`<div class="meta">${run.detail}</div>` : ''}
</li>`;
}

function capacityItem(row: StatusData['capacity'][number]): SafeHtml {
  const wanted = row.availability !== null && (row.wanted as readonly string[]).includes(row.availability);
  return html`<li>
<div class="row"><span class="name">${row.gpuName}</span><span class="tag ${wanted ? 'ok' : 'info'}">${row.availability ?? 'unknown'}</span></div>
<div class="meta">${row.account} · ${row.product} · ${row.dataCenterId || 'all data centers'} · watching for ${row.wanted.join(', ')}${row.priceSecure !== null ? ` · ${formatUsdPerHour(row.priceSecure)}` : ''}</div>
</li>`;
}

function card(title: string, items: SafeHtml[], empty: string, tone = ''): SafeHtml {
  return html`<section class="card ${tone}"><h2>${title}</h2>${
    items.length > 0 ? html`<ul class="items">${items}</ul>` : html`<p class="muted">${empty}</p>`
  }</section>`;
}

/** Spend by team on a line of its own, only when `owners` gives resources a team (a page without is byte for byte as before). */
function teamSpendSection(data: StatusData): SafeHtml | '' {
  if (!data.teamSpend) return '';
  const { title, items } = teamSpendCard(data.teamSpend);
  return html`\n${card(title, items, 'Nothing billed this month yet.')}`;
}

/** `/`: what the daemon knows now, most urgent first, every figure formatted in src/format.ts. */
export function renderStatusPage(data: StatusData, options: StatusPageOptions): string {
  const zone = options.timeZone;
  const { now } = data;
  const banners: SafeHtml[] = [];
  if (options.notice) banners.push(html`<p class="banner good">${options.notice}</p>`);
  if (!data.ready) banners.push(html`<p class="banner bad">Not ready: ${data.reasons.join('; ')}</p>`);
  const alerts = openAlertRows(data.alerts.map(firedAlert), {
    now,
    timeZone: zone,
    links: false,
    commandLine: data.commandLine,
  });
  const body = html`${banners}
${card(
  'Idle GPUs',
  data.idle.map((candidate) => idleItem(candidate, options, data)),
  'No Pod is idle.',
  data.idle.some((c) => c.plannedStopAt !== null && !data.snoozedUntil.has(snoozeKey(c.account, c.podId)))
    ? 'warning'
    : '',
)}
${card(
  'Open alerts',
  alerts.map((row) => alertItem(row, options, now)),
  'No alert is firing.',
  alerts.some((row) => row.alert.severity === 'critical') ? 'critical' : alerts.length > 0 ? 'warning' : '',
)}
${card(
  'Budgets',
  data.budgets.map((status) => budgetItem(status, zone)),
  'No budget configured.',
)}${teamSpendSection(data)}${savingsCard(data.savings)}
${card(
  'Recent decisions',
  data.receipts.map((receipt) => receiptItem(receipt, zone, { allGuards: false })),
  'No idle decision yet.',
)}
<div class="cols">
${card(
  'Collectors',
  data.collectors.map((health) => collectorItem(health, zone, now)),
  'No collector enabled.',
)}
${card('Capacity watches', data.capacity.map(capacityItem), 'No GPU type watched (capacity.watch).')}
</div>`;
  return page({
    title: 'status',
    banner: options.loopbackOnly
      ? 'Served to this machine only: no http.bearerToken is configured, so other addresses get 403.'
      : undefined,
    body,
    footer: `as of ${formatDateTime(now, zone)}`,
  });
}
