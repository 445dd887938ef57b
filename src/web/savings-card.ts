import type { SavingsSoFar } from '../db/savings.js';
import { formatUsd, formatUsdPerHour } from '../format.js';
import { html, type SafeHtml } from './html.js';

/**
 * The status page's "Savings" card: per account, what podwarden's stops saved so far (the
 * savings ledger) and what the Pods still stopped save per hour. Nothing when no stop was ever
 * sent: a page of a dry-run or fresh install stays as it was.
 */
export function savingsCard(savings: readonly SavingsSoFar[]): SafeHtml {
  if (savings.length === 0) return html``;
  const items = savings.map(
    (sums) => html`<li>
<div class="row"><span class="name">${sums.account}</span><span class="tag ok">saved ${formatUsd(sums.saved)}</span></div>
<div>${sums.stops} stop${sums.stops === 1 ? '' : 's'} sent; ${
      sums.stillStopped === 0
        ? 'every stopped Pod was started again'
        : `${sums.stillStopped} Pod${sums.stillStopped === 1 ? '' : 's'} still stopped, saving ${formatUsdPerHour(sums.savingPerHrNow)}`
    }</div>
</li>`,
  );
  return html`<section class="card"><h2>Savings</h2><ul class="items">${items}</ul>
<p class="meta">Each stop saves the Pod's cost minus its stopped volume disk, from the stop until the Pod runs again. <code>podwarden report</code> breaks it down.</p></section>`;
}
