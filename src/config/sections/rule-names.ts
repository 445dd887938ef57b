import { z } from 'zod';

/**
 * Every rule that produces findings, in the order the configuration lists them: the rules' own
 * names (`RuleName` of rules/finding.ts; test/config/alert-rules.test.ts holds them equal).
 */
export const ALERT_RULES = ['budget', 'idle', 'enforce', 'capacity', 'waste', 'health'] as const;

/** A strict object with one field per rule, each made by `field`. */
export function perRule<F extends z.ZodType>(field: () => F) {
  const shape = Object.fromEntries(ALERT_RULES.map((rule) => [rule, field()]));
  return z.strictObject(shape as Record<(typeof ALERT_RULES)[number], F>);
}
