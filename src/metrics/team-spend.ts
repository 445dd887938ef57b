import { readTeamSpend, showsTeamSpend, type TeamSpendReport } from '../alerts/team-spend.js';
import { collectorsFeeding } from '../collectors/index.js';
import { billingRecords } from '../db/schema.js';
import { gaugeTable } from './account-series.js';
import { periodsSummableFrom } from './periods.js';
import { type MetricsContext, refreshedAccounts } from './source.js';

/**
 * Billed spend of the current UTC month by team, as the status page and the digest show it, read
 * again after each billing run (never on a scrape): a team's figure moves when billing does, and
 * the Pod list a run would see renamed has moved on by the next billing run. Without `owners`
 * teams: no series.
 */
export function registerTeamSpendMetrics(context: MetricsContext): void {
  const { registry, source, config } = context;
  const fill = gaugeTable<TeamSpendReport>(registry, [
    {
      name: 'podwarden_team_spend_dollars',
      help: 'Spend billing reported for the current UTC month so far, by the team owners gives each resource ("(no team)" for those it gives none); absent without owners teams, until billing was collected, and for bucket sizes a month is not made of.',
      labelNames: ['account', 'team', 'period'],
      series: ({ account, teams }, set) => {
        for (const { team, amount } of teams ?? []) set({ account, team, period: 'month' }, amount);
      },
    },
  ]);
  if (!showsTeamSpend(config) || !periodsSummableFrom(config.collectors.billing.bucketSize).includes('month')) return;
  context.refreshOn(collectorsFeeding(billingRecords), async (at) => {
    for (const account of refreshedAccounts(config, at)) {
      fill([await readTeamSpend(source.db, config, account, at.now)], account);
    }
  });
}
