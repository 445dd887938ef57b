import { idleEvidence, type ReceiptRecord } from '../db/receipts.js';
import { formatDateTime, formatPercent, formatUsdPerHour } from '../format.js';
import { controlOf, RECEIPT_DECISION_TEXT } from '../messages/receipt-decision.js';
import { sparkSvg } from './charts.js';
import { html, type SafeHtml } from './html.js';

const DECISION_TONE: Record<ReceiptRecord['decision'], string> = {
  notified: 'info',
  warned: 'warning',
  stopped: 'critical',
  dry_run: 'warning',
  blocked: 'info',
  failed: 'critical',
  cancelled: 'ok',
  extended: 'ok',
};

export const podPath = (account: string, podId: string) =>
  `/pods/${encodeURIComponent(account)}/${encodeURIComponent(podId)}`;

/** One idle decision with its evidence and its failed guards (all guards on the Pod's page). */
export function receiptItem(receipt: ReceiptRecord, timeZone: string, options: { allGuards: boolean }): SafeHtml {
  const evidence = idleEvidence(receipt.evidence);
  const guards = options.allGuards ? receipt.guards : receipt.guards.filter((guard) => !guard.passed);
  return html`<li>
<div class="row"><span><a class="name" href="${podPath(receipt.account, receipt.podId)}">${receipt.podName}</a> <span class="meta">${receipt.podId} · ${receipt.account} · ${controlOf(receipt)}</span></span>
<span class="tag ${DECISION_TONE[receipt.decision]}">${RECEIPT_DECISION_TEXT[receipt.decision]}</span></div>
<div class="meta">${formatDateTime(receipt.decidedAt, timeZone)}${receipt.plannedStopAt !== null && (receipt.decision === 'warned' || receipt.decision === 'extended') ? ` · stop planned ${formatDateTime(receipt.plannedStopAt, timeZone)}${receipt.dryRun ? ' (dry run)' : ''}` : ''}</div>
${receipt.reason ? html`<div>${receipt.reason}</div>` : ''}
${
  evidence && evidence.samples.length > 0
    ? html`${sparkSvg(evidence.samples, evidence.thresholds.utilThreshold, !options.allGuards)}
<div class="meta">${formatDateTime(evidence.windowFrom, timeZone)} → ${formatDateTime(evidence.windowTo, timeZone)}: ${evidence.samples.length} samples, ${evidence.idleSamples} idle, idle coverage ${formatPercent(evidence.coverage)}${evidence.held ? ', GPU memory held' : ''} (needs GPU ≤ ${evidence.thresholds.utilThreshold}% and ${formatPercent(evidence.thresholds.coverage)})</div>`
    : ''
}
<div class="meta">costs ${formatUsdPerHour(receipt.costPerHr)}, saves ${formatUsdPerHour(receipt.savingPerHr)} when stopped</div>
${guards.length > 0 ? html`<ul class="guards">${guards.map((guard) => html`<li class="${guard.passed ? '' : 'fail'}">${guard.passed ? 'pass' : 'FAIL'} ${guard.guard}: ${guard.detail}</li>`)}</ul>` : ''}
</li>`;
}
