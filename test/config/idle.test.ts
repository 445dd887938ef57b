import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { problemsOf } from './support.js';

const accounts = [{ name: 'main', apiKey: 'rpa_idle_key_0001' }];
const parse = (idle: unknown) => parseConfig({ accounts, idle }, { env: {}, baseDir: '/' });

describe('idle section', () => {
  it('fills every field of a rule given only its name and match, and keeps the order of rules', () => {
    const config = parse({ rules: [{ name: 'notebooks', match: { names: ['nb-*'] }, dryRun: false }, {}] });
    expect(config.idle.rules.map((rule) => [rule.name, rule.match, rule.dryRun, rule.windowMs])).toEqual([
      ['notebooks', { podIds: [], names: ['nb-*'] }, false, 30 * 60_000],
      ['default', { podIds: [], names: [] }, true, 30 * 60_000],
    ]);
  });

  it('turns idle actions off with an empty list of rules', () => {
    expect(parse({ rules: [] }).idle.rules).toEqual([]);
  });

  it('names every problem by its path', () => {
    const problems = problemsOf(() =>
      parse({
        rules: [
          { actions: ['notify', 'stop'], quietHours: [{ from: '25:00', to: '07:00' }], coverage: 0 },
          { window: '0s', caps: { stopsPerHour: 0 } },
          { name: 'default', utilThreshold: 120 },
        ],
      }),
    );
    expect(problems).toEqual([
      {
        path: 'idle.rules[0].coverage',
        message: 'must be greater than 0',
      },
      {
        path: 'idle.rules[0].quietHours[0].from',
        message: 'invalid time of day "25:00" (expected HH:MM in UTC, e.g. "22:00")',
      },
      {
        path: 'idle.rules[0].actions',
        message:
          'expected the ladder in order, each step after the ones before it: [notify], [notify, warn] or [notify, warn, stop], got [notify, stop]',
      },
      { path: 'idle.rules[1].window', message: 'duration must be greater than 0, got "0s"' },
      { path: 'idle.rules[1].caps.stopsPerHour', message: 'must be at least 1' },
      { path: 'idle.rules[2].utilThreshold', message: 'must be at most 100' },
    ]);
  });

  it('refuses two rules of the same name', () => {
    expect(problemsOf(() => parse({ rules: [{ name: 'a' }, { name: 'a' }] }))).toEqual([
      { path: 'idle.rules[1].name', message: 'duplicate idle rule name "a" (also idle.rules[0].name)' },
    ]);
  });
});
