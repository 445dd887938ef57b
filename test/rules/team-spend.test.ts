import { describe, expect, it } from 'vitest';
import { ownersSection } from '../../src/config/sections/owners.js';
import type { OwnedSpend } from '../../src/db/owned-spend.js';
import { NO_TEAM, spendByTeam } from '../../src/rules/team-spend.js';

const row = (resourceId: string, name: string | null, amount: number, env: Record<string, string> | null = null) =>
  ({ kind: 'pods', resourceId, name, env, amount }) satisfies OwnedSpend;

describe('spend by team', () => {
  const owners = ownersSection.parse({ fromEnv: { team: ['TEAM'] }, fromName: ['^(?<team>[a-z]+)-'] });

  it('puts every resource in one line (env before name), largest first, ties by name, no team last', () => {
    const teams = spendByTeam(owners, [
      row('a', 'ml-a', 1.1),
      row('b', 'web-b', 3),
      row('c', 'ml-c', 1.9),
      row('d', 'scratch', 5),
      row('e', 'web-e', 0, { TEAM: 'data' }),
      row('f', null, 0.25),
      row('g', 'ops-g', 3),
    ]);
    expect(teams.map((t) => [t.team, t.amount, t.resources])).toEqual([
      ['ml', 3, 2],
      ['ops', 3, 1],
      ['web', 3, 1],
      ['data', 0, 1],
      [NO_TEAM, 5.25, 2],
    ]);
  });

  it('gives resources no source names the default team, and nothing billed no lines', () => {
    const withDefault = ownersSection.parse({ default: { team: 'platform' } });
    expect(spendByTeam(withDefault, [row('x', 'anything', 2)]).map((t) => t.team)).toEqual(['platform']);
    expect(spendByTeam(owners, [])).toEqual([]);
  });
});
