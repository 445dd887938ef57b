import { describe, expect, it } from 'vitest';
import { ALERT_RULES } from '../../src/config/sections/alerts.js';
import type { RuleName } from '../../src/rules/finding.js';

/** The configuration sits below the rules, so it cannot check its list of rule names itself. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameNames: Same<(typeof ALERT_RULES)[number], RuleName> = true;

describe('alerts.rules of the configuration', () => {
  it("names exactly the rules' own names (the typecheck fails otherwise)", () => {
    expect(sameNames).toBe(true);
    expect(new Set(ALERT_RULES).size).toBe(ALERT_RULES.length);
  });
});
