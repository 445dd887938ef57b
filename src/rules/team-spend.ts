import { ownerOf } from '../config/owner-of.js';
import type { OwnersConfig } from '../config/sections/owners.js';
import { groupBy } from '../db/group-by.js';
import type { OwnedSpend } from '../db/owned-spend.js';
import { currentPeriod, type Period } from './period.js';

/** The bucket of the spend of resources no `owners` source gives a team: shown, never dropped. */
export const NO_TEAM = '(no team)';

/** One team's spend in the period: the sum of its resources' billing. */
export interface TeamSpend {
  /** The team, or NO_TEAM. */
  team: string;
  amount: number;
  /** How many billed resources make it up. */
  resources: number;
}

/** The period spend by team covers: the current UTC calendar month, as the spend metrics count it. */
export function teamSpendPeriod(now: number): Period {
  return currentPeriod({ period: 'month', timeZone: 'UTC', weekStartsOn: 'monday', monthResetDay: 1 }, now);
}

/**
 * The period's billing grouped by the team `owners` gives each resource now (from its name and a
 * Pod's env): largest first, ties by name, the no-team bucket last. Every billed resource lands
 * in exactly one line, so the lines add up to the resources' billing.
 */
export function spendByTeam(owners: OwnersConfig, rows: readonly OwnedSpend[]): TeamSpend[] {
  const byTeam = groupBy(rows, (row) => ownerOf(owners, row).team ?? NO_TEAM);
  const teams = [...byTeam].map(([team, resources]) => ({
    team,
    amount: resources.reduce((total, row) => total + row.amount, 0),
    resources: resources.length,
  }));
  const last = (team: TeamSpend) => (team.team === NO_TEAM ? 1 : 0);
  return teams.sort((a, b) => last(a) - last(b) || b.amount - a.amount || a.team.localeCompare(b.team));
}
