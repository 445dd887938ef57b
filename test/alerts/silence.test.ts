import { describe, expect, it } from 'vitest';
import { formatMatcher, MatcherError, matchesAll, parseMatcher } from '../../src/alerts/matchers.js';
import { newSilence, SilenceError, silenceState } from '../../src/alerts/silence.js';

const labels = { rule: 'budget', account: 'sim', budget: 'gpu-month', figure: 'live', threshold: '80' };

describe('matchers', () => {
  it('parse Alertmanager’s four operators and print back the same', () => {
    for (const text of ['budget=gpu-month', 'rule!=capacity', 'figure=~live|actual', 'threshold!~5.*']) {
      expect(formatMatcher(parseMatcher(text))).toBe(text);
    }
    expect(parseMatcher('budget="gpu month"')).toEqual({ name: 'budget', op: '=', value: 'gpu month' });
  });

  it('match whole values; an absent label reads as empty', () => {
    const match = (...texts: string[]) => matchesAll(texts.map(parseMatcher), labels);
    expect(match('budget=gpu-month', 'figure=~live|actual')).toBe(true);
    expect(match('budget=gpu')).toBe(false);
    expect(match('figure=~liv')).toBe(false);
    expect(match('threshold!~5.*')).toBe(true);
    expect(match('pod_id=')).toBe(true);
    expect(match('pod_id=~.+')).toBe(false);
  });

  it('reject what they cannot read, naming it', () => {
    expect(() => parseMatcher('budget')).toThrow(MatcherError);
    expect(() => parseMatcher('figure=~(live')).toThrow(/matcher "figure=~\(live": invalid regular expression/);
  });
});

describe('silences', () => {
  it('are pending, active, then expired, from their times alone', () => {
    const silence = { startsAt: 100, endsAt: 200 };
    expect([99, 100, 199, 200].map((now) => silenceState(silence, now))).toEqual([
      'pending',
      'active',
      'active',
      'expired',
    ]);
  });

  it('need a positive matcher and a positive duration', () => {
    const base = { id: 's', comment: 'c', createdBy: 't', now: 0, durationMs: 1 };
    expect(() => newSilence({ ...base, matchers: [] })).toThrow(SilenceError);
    expect(() => newSilence({ ...base, matchers: [parseMatcher('rule!=budget')] })).toThrow(/only negations/);
    expect(() => newSilence({ ...base, durationMs: 0, matchers: [parseMatcher('rule=budget')] })).toThrow(SilenceError);
    expect(newSilence({ ...base, now: 10, durationMs: 5, matchers: [parseMatcher('rule=budget')] })).toMatchObject({
      startsAt: 10,
      endsAt: 15,
    });
  });
});
