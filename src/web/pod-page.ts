import { idleCandidates } from '../actions/idle-status.js';
import type { Config } from '../config/schema.js';
import { podSnoozesAfter } from '../db/idle-state.js';
import { livePods } from '../db/pods.js';
import { recentReceipts } from '../db/receipts.js';
import { sampleWindow } from '../db/sample-window.js';
import { formatDateTime, formatElapsed, formatUsdPerHour } from '../format.js';
import type { MetricsSource } from '../metrics/source.js';
import { ruleFor } from '../rules/idle-match.js';
import { seriesSamples } from '../rules/idle-samples.js';
import { type SparkSample, sparkSvg } from './charts.js';
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import { receiptItem } from './receipt-view.js';
import type { StatusPageOptions } from './status-page.js';

/** How many decisions the Pod's page lists, like `podwarden why --limit`. */
const POD_RECEIPTS = 10;

/** A Pod's idle window now and its decisions: the page form of `podwarden why`. */
export async function podData(source: MetricsSource, config: Config, account: string, podId: string, now: number) {
  const pod = (await livePods(source.db, account)).find((p) => p.podId === podId);
  const candidates = await idleCandidates(source.db, config, now);
  const candidate = candidates.find((c) => c.account === account && c.podId === podId);
  const rule =
    config.idle.rules.find((r) => r.name === candidate?.rule) ??
    (pod ? ruleFor(pod, config.idle.rules) : undefined) ??
    config.idle.rules[0];
  const windowMs = rule?.windowMs ?? 30 * 60_000;
  const threshold = rule?.utilThreshold ?? 5;
  // The Pod's window (its sample tail), each sample classified as the idle rule classifies it.
  const series = (await sampleWindow(source.db, account, now - windowMs, now, [podId])).get(podId);
  const samples: SparkSample[] = series
    ? seriesSamples(series, now - windowMs, now, threshold).map(({ at, state, gpuUtil }) => ({ at, state, gpuUtil }))
    : [];
  return {
    account,
    podId,
    pod,
    candidate,
    windowMs,
    threshold,
    samples,
    snoozedUntil: (await podSnoozesAfter(source.db, podId, now)).find((s) => s.account === account)?.until,
    receipts: await recentReceipts(source.db, POD_RECEIPTS, { account, podId }),
  };
}

export function renderPodPage(
  data: Awaited<ReturnType<typeof podData>>,
  options: StatusPageOptions & { now: number },
): string {
  const zone = options.timeZone;
  const { pod, candidate } = data;
  const title = pod?.name ?? data.podId;
  const facts: Array<[string, string]> = [
    ['Pod', `${data.podId} (account ${data.account})`],
    ['Status', pod ? pod.status : 'not in the latest Pod list'],
  ];
  if (pod) facts.push(['Costs', formatUsdPerHour(pod.costPerHr)]);
  if (candidate) {
    facts.push([
      'Idle since',
      `${formatDateTime(candidate.idleSince, zone)} (${formatElapsed(options.now - candidate.idleSince)})`,
    ]);
    facts.push([
      'Planned stop',
      data.snoozedUntil !== undefined
        ? 'none: kept running (below)'
        : candidate.plannedStopAt === null
          ? 'none yet'
          : `${formatDateTime(candidate.plannedStopAt, zone)}, in ${formatElapsed(candidate.msToStop ?? 0)}${candidate.dryRun ? ' (dry run)' : ''}`,
    ]);
  }
  if (data.snoozedUntil !== undefined) {
    facts.push([
      'Kept running',
      `until ${formatDateTime(data.snoozedUntil, zone)}: no idle warning or stop before then`,
    ]);
  }
  const idle = data.samples.filter((s) => s.state === 'IDLE').length;
  const unknown = data.samples.filter((s) => s.state === 'UNKNOWN').length;
  const body: SafeHtml = html`${options.notice ? html`<p class="banner good">${options.notice}</p>` : ''}
<section class="card${candidate?.plannedStopAt != null ? ' warning' : ''}"><h2>${title}</h2>
<table class="kv">${facts.map(([key, value]) => html`<tr><td>${key}</td><td>${value}</td></tr>`)}</table>
${candidate ? options.forms.keepRunning(candidate) : ''}
</section>
<section class="card"><h2>GPU utilization, last ${formatElapsed(data.windowMs)}</h2>
${
  data.samples.length > 0
    ? html`${sparkSvg(data.samples, data.threshold)}
<div class="legend meta"><span><span class="key idle"></span>idle (≤ ${data.threshold}%)</span><span><span class="key active"></span>busy</span><span><span class="key unknown"></span>unknown (never counts as idle)</span></div>
<div class="meta">${data.samples.length} samples, ${idle} idle, ${unknown} unknown; the dashed line is the idle threshold</div>`
    : html`<p class="muted">No samples in the window.</p>`
}
</section>
<section class="card"><h2>Decisions</h2>${
    data.receipts.length > 0
      ? html`<ul class="items">${data.receipts.map((receipt) => receiptItem(receipt, zone, { allGuards: true }))}</ul>`
      : html`<p class="muted">No idle decision recorded for this Pod.</p>`
  }</section>`;
  return page({
    title,
    banner: options.loopbackOnly ? 'Served to this machine only: no http.bearerToken is configured.' : undefined,
    body,
    footer: `as of ${formatDateTime(options.now, zone)}`,
  });
}
