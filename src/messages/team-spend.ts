import type { TeamSpendReport } from '../alerts/team-spend.js';
import { formatPercent, formatUsd } from '../format.js';

/** How spend by team reads, in the digest and on the status page: one line per team, no team last. */

/** The heading of the spend by team of a period. */
export function teamSpendTitle(report: TeamSpendReport): string {
  return `Spend by team, ${report.period.label} (UTC, billed so far)`;
}

/** One [team, figures] row per team; none while billing is unknown or nothing was billed. */
export function teamSpendRows(report: TeamSpendReport | undefined): Array<[string, string]> {
  const teams = report?.teams ?? [];
  const total = teams.reduce((sum, team) => sum + team.amount, 0);
  return teams.map((team) => [
    team.team,
    `${formatUsd(team.amount)}${total > 0 ? ` (${formatPercent(team.amount / total)})` : ''} · ${team.resources} resource${team.resources === 1 ? '' : 's'}`,
  ]);
}

/** The digest's table of spend by team: none without `owners` teams, while billing is unknown, or before any billing. */
export function teamSpendTables(report: TeamSpendReport | undefined): Array<[string, Array<[string, string]>]> {
  return report ? [[teamSpendTitle(report), teamSpendRows(report)]] : [];
}
