import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/load.js';
import type { IdleRuleConfig } from '../../src/config/sections/idle.js';
import { afterQuietHours, exclusionOf, namePattern, quietUntil, ruleFor } from '../../src/rules/idle-match.js';

const base = defaultConfig([{ name: 'a', apiKey: 'k' }]).idle.rules[0] as IdleRuleConfig;
const rule = (change: Partial<IdleRuleConfig>): IdleRuleConfig => ({ ...base, ...change });
const podOf = (podId: string, name = podId, env: Record<string, string> = {}) => ({ podId, name, env });
const at = (iso: string) => Date.parse(iso);

describe('namePattern', () => {
  it('matches * and ? and takes everything else literally', () => {
    expect(namePattern('nb-*').test('nb-alice')).toBe(true);
    expect(namePattern('nb-*').test('xnb-alice')).toBe(false);
    expect(namePattern('gpu-?').test('gpu-1')).toBe(true);
    expect(namePattern('gpu-?').test('gpu-10')).toBe(false);
    expect(namePattern('a.b').test('axb')).toBe(false);
  });
});

describe('ruleFor and exclusionOf', () => {
  it('gives a Pod the first rule that selects it; an empty match selects every Pod', () => {
    const notebooks = rule({ name: 'notebooks', match: { podIds: [], names: ['nb-*'] } });
    const pinned = rule({ name: 'pinned', match: { podIds: ['p-1'], names: [] } });
    const rest = rule({ name: 'rest' });
    const rules = [notebooks, pinned, rest];
    expect(ruleFor(podOf('x', 'nb-alice'), rules)?.name).toBe('notebooks');
    expect(ruleFor(podOf('p-1', 'train'), rules)?.name).toBe('pinned');
    expect(ruleFor(podOf('q', 'train'), rules)?.name).toBe('rest');
    expect(ruleFor(podOf('q', 'train'), [notebooks, pinned])).toBeUndefined();
  });

  it('excludes by id, by name pattern and by PODWARDEN_IGNORE=true whatever the rule says', () => {
    const r = rule({ exclude: { podIds: ['keep'], names: ['dev-*'] } });
    expect(exclusionOf(podOf('keep'), r)).toBe('pod id listed in idle rule "default" exclude.podIds');
    expect(exclusionOf(podOf('x', 'dev-box'), r)).toBe('pod name matches idle rule "default" exclude.names');
    expect(exclusionOf(podOf('x', 'nb', { PODWARDEN_IGNORE: 'TRUE' }), base)).toBe('env PODWARDEN_IGNORE=true');
    expect(exclusionOf(podOf('x', 'nb', { PODWARDEN_IGNORE: 'false' }), base)).toBeUndefined();
  });
});

describe('quiet hours', () => {
  const night = rule({ quietHours: [{ from: '22:00', to: '06:00' }] });

  it('holds the small hours of a period that crosses midnight, and ends it at its end', () => {
    expect(quietUntil(night, at('2026-11-02T23:30:00Z'))).toBe(at('2026-11-03T06:00:00Z'));
    expect(quietUntil(night, at('2026-11-02T03:00:00Z'))).toBe(at('2026-11-02T06:00:00Z'));
    expect(quietUntil(night, at('2026-11-02T06:00:00Z'))).toBeUndefined();
    expect(quietUntil(night, at('2026-11-02T21:59:59Z'))).toBeUndefined();
  });

  it('moves a time to the end of the quiet hours, across periods that touch', () => {
    const touching = rule({
      quietHours: [
        { from: '12:00', to: '13:00' },
        { from: '13:00', to: '14:00' },
      ],
    });
    expect(afterQuietHours(touching, at('2026-11-02T12:30:00Z'))).toBe(at('2026-11-02T14:00:00Z'));
    expect(afterQuietHours(night, at('2026-11-02T10:00:00Z'))).toBe(at('2026-11-02T10:00:00Z'));
  });
});
