import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { problemsOf, scratchDir } from './support.js';

/** Budgets by team or owner: where they may be used, and that `owners` must be able to give one. */
const scratch = scratchDir();
afterAll(() => scratch.remove());

const ACCOUNT = 'accounts:\n  - name: main\n    apiKey: rpa_inline_key_0001\n';
const TEAMS = 'owners:\n  fromName: ["^(?<team>[a-z]+)-"]\n';

function problems(name: string, yaml: string): string[] {
  const file = scratch.write(`${name}.yaml`, `${ACCOUNT}${yaml}`);
  return problemsOf(() => loadConfig({ path: file, env: {} })).map((p) => `${p.path}: ${p.message}`);
}

describe('a budget by team or owner', () => {
  it('loads with a team or an owner on Pods or serverless when owners can give one', () => {
    const file = scratch.write(
      'ok.yaml',
      `${ACCOUNT}owners:\n  fromEnv: { owner: [OWNER] }\n  fromName: ["^(?<team>[a-z]+)-"]\nbudgets:\n  - { name: ml, scope: pods, team: ml, amount: 100 }\n  - { name: ana, scope: serverless, owner: ana, namePattern: "sd-*", amount: 10 }\n`,
    );
    const config = loadConfig({ path: file, env: {} });
    expect(config.budgets.map((b) => [b.name, b.team, b.owner])).toEqual([
      ['ml', 'ml', undefined],
      ['ana', undefined, 'ana'],
    ]);
  });

  it('is refused on a scope whose resources have no names (the whole account, volumes…)', () => {
    expect(problems('scope', `${TEAMS}budgets:\n  - { name: ml, team: ml, amount: 100 }\n`)).toEqual([
      'budgets[0].team: only with scope pods or serverless',
    ]);
    expect(
      problems('volumes', `${TEAMS}budgets:\n  - { name: ml, scope: network_volumes, team: ml, amount: 1 }\n`),
    ).toEqual(['budgets[0].team: only with scope pods or serverless']);
  });

  it('is refused when nothing in owners gives a resource a team (or an owner): it would count nothing, silently', () => {
    expect(problems('no-owners', 'budgets:\n  - { name: ml, scope: pods, team: ml, amount: 100 }\n')).toEqual([
      'budgets[0].team: budget by team "ml", but nothing gives resources a team: configure owners.fromEnv.team, an owners.fromName pattern with (?<team>…), or owners.default.team',
    ]);
    // A pattern that captures the team gives no owner.
    expect(problems('owner', `${TEAMS}budgets:\n  - { name: ana, scope: pods, owner: ana, amount: 100 }\n`)).toEqual([
      'budgets[0].owner: budget by owner "ana", but nothing gives resources an owner: configure owners.fromEnv.owner, an owners.fromName pattern with (?<owner>…), or owners.default.owner',
    ]);
  });

  it('is refused with an empty team name', () => {
    expect(problems('empty', `${TEAMS}budgets:\n  - { name: ml, scope: pods, team: "", amount: 100 }\n`)).toEqual([
      'budgets[0].team: must not be empty',
    ]);
  });
});
