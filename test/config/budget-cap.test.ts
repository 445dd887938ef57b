import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { problemsOf } from './support.js';

const parse = (budget: Record<string, unknown>) =>
  parseConfig(
    { accounts: [{ name: 'main', apiKey: 'rpa_inline_key_0001' }], budgets: [{ name: 'b', amount: 100, ...budget }] },
    { env: {}, baseDir: '/' },
  );

describe('budgets[].onSpent', () => {
  it('is absent by default: a budget alerts only, as before', () => {
    expect(parse({}).budgets[0]?.onSpent).toBeUndefined();
  });

  it('stops in dry run, at 100 %, warned 30 minutes ahead, unless told otherwise', () => {
    expect(parse({ onSpent: { action: 'stop' } }).budgets[0]?.onSpent).toEqual({
      action: 'stop',
      threshold: 100,
      warnLeadMs: 30 * 60_000,
      dryRun: true,
    });
    expect(
      parse({ scope: 'pods', onSpent: { action: 'stop', warnLead: '1h', threshold: 90 } }).budgets[0]?.onSpent,
    ).toMatchObject({ warnLeadMs: 3_600_000, threshold: 90 });
  });

  it('refuses a stop for a scope whose spend does not come from Pods, naming the field', () => {
    const problems = problemsOf(() => parse({ scope: 'serverless', onSpent: { action: 'stop' } }));
    expect(problems).toEqual([
      {
        path: 'budgets[0].onSpent.action',
        message:
          'stop only with scope account or pods (their spend comes from Pods, which can be stopped); scope serverless can only alert',
      },
    ]);
    expect(parse({ scope: 'serverless', onSpent: { action: 'alert' } }).budgets[0]?.onSpent?.action).toBe('alert');
  });

  it('refuses a threshold above 100 and an unknown field', () => {
    expect(problemsOf(() => parse({ onSpent: { action: 'stop', threshold: 120 } })).map((p) => p.path)).toEqual([
      'budgets[0].onSpent.threshold',
    ]);
    expect(problemsOf(() => parse({ onSpent: { action: 'stop', terminate: true } })).map((p) => p.path)).toEqual([
      'budgets[0].onSpent.terminate',
    ]);
  });
});
