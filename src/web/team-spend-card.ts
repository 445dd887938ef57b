import type { TeamSpendReport } from '../alerts/team-spend.js';
import { teamSpendRows, teamSpendTitle } from '../messages/team-spend.js';
import { html, type SafeHtml } from './html.js';

/** The status page's spend by team: its heading, and one item per account and team, worded as the digest words it. */
export function teamSpendCard(reports: readonly TeamSpendReport[]): { title: string; items: SafeHtml[] } {
  const [first] = reports;
  const title = first ? teamSpendTitle(first) : 'Spend by team';
  const items = reports.flatMap((report) =>
    report.teams === null
      ? [
          html`<li><div class="row"><span class="name">${report.account}</span><span class="tag info">unknown</span></div><div class="meta">billing not collected yet</div></li>`,
        ]
      : teamSpendRows(report).map(
          ([team, figures]) =>
            html`<li><div class="row"><span class="name">${team}</span><span>${figures}</span></div><div class="meta">${report.account}</div></li>`,
        ),
  );
  return { title, items };
}
