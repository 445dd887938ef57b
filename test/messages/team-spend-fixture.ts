import type { TeamSpendReport } from '../../src/alerts/team-spend.js';
import { NO_TEAM, teamSpendPeriod } from '../../src/rules/team-spend.js';
import { NOW } from './fixtures.js';

/** The `team` account's spend by team this month, as the digest with `owners` teams shows it. */
export const TEAM_SPEND: TeamSpendReport = {
  account: 'team',
  period: teamSpendPeriod(NOW),
  teams: [
    { team: 'ml', amount: 812.4, resources: 5 },
    { team: 'research', amount: 230.07, resources: 2 },
    { team: NO_TEAM, amount: 41.5, resources: 3 },
  ],
};
