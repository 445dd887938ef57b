import { resolvesField } from '../config/owner-sources.js';
import type { Config } from '../config/schema.js';
import { lastSuccessAt } from '../db/collector-runs.js';
import type { Database } from '../db/open.js';
import { ownedSpend } from '../db/owned-spend.js';
import type { Period } from '../rules/period.js';
import { spendByTeam, type TeamSpend, teamSpendPeriod } from '../rules/team-spend.js';

/** One account's spend by team in the current UTC month, as the status page, the digest and the metric show it. */
export interface TeamSpendReport {
  account: string;
  period: Period;
  /** Null until billing was collected for the account: unknown is not zero. */
  teams: TeamSpend[] | null;
}

/** Whether spend by team is shown at all: only when `owners` can give a resource a team. */
export function showsTeamSpend(config: Config): boolean {
  return resolvesField(config.owners, 'team');
}

/** The account's spend by team at `now`: one store read, grouped by the configured ownership. */
export async function readTeamSpend(
  database: Database,
  config: Config,
  account: string,
  now: number,
): Promise<TeamSpendReport> {
  const period = teamSpendPeriod(now);
  const { bucketSize, enabled } = config.collectors.billing;
  if (!enabled || (await lastSuccessAt(database, account, 'billing')) === null) return { account, period, teams: null };
  const rows = await ownedSpend(database, {
    account,
    bucketSize,
    periodStart: period.startMs,
    periodEnd: period.endMs,
  });
  return { account, period, teams: spendByTeam(config.owners, rows) };
}
