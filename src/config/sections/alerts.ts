import { z } from 'zod';
import type { RuleName } from '../../rules/finding.js';
import { duration, durationOrZero, withMs } from '../fields.js';

/** Every rule that produces findings, in the order the configuration lists them. */
export const ALERT_RULES = ['budget', 'idle', 'capacity', 'waste', 'health'] as const satisfies readonly RuleName[];

const rules = () => z.array(z.enum(ALERT_RULES));

/**
 * `alerts`: how findings become notifications, in the manner of Alertmanager. Alerts with the
 * same `groupBy` labels and recipients share one message (a digest); a group's first message
 * waits `groupWait` for companions, later ones come at most every `groupInterval`, and a group
 * still firing is repeated every `repeatInterval`.
 */
export const alertsSection = withMs(
  {
    groupWait: duration().prefault('30s'),
    groupInterval: duration().prefault('5m'),
    repeatInterval: duration().prefault('4h'),
    groupBy: z.array(z.string().min(1)).prefault(['account', 'rule', 'budget']),
    /** A budget's higher threshold mutes its lower ones for the same figure (100 % mutes 80 % and 50 %). */
    inhibit: z.boolean().default(true),
    /** The rules whose alerts send a notice when they resolve. */
    sendResolved: rules().prefault(['budget', 'idle', 'waste', 'health']),
    /** The rules whose alerts are announced once per episode and never repeated. */
    noRepeat: rules().prefault(['budget', 'capacity']),
    /** How long a rule's condition must hold before its alert fires (absent: at once). */
    for: withMs(
      {
        budget: duration().optional(),
        idle: duration().optional(),
        capacity: duration().optional(),
        waste: duration().optional(),
        health: duration().optional(),
      },
      ALERT_RULES,
    ).prefault({}),
    /**
     * How long a rule's condition must be judged absent before its alert resolves (Prometheus'
     * keep_firing_for). Ticks in which the rule could not judge (stale data) do not count.
     */
    resolveAfter: withMs(
      {
        budget: durationOrZero().prefault('0s'),
        idle: durationOrZero().prefault('15m'),
        capacity: durationOrZero().prefault('0s'),
        waste: durationOrZero().prefault('30m'),
        health: durationOrZero().prefault('5m'),
      },
      ALERT_RULES,
    ).prefault({}),
    /**
     * An alert that fires `count` times within `window` flaps: one notice says so and what the
     * pattern costs, then its episodes are not mailed until it settles (no change for `window`).
     */
    flapping: withMs(
      {
        count: z.int().min(2).default(3),
        window: duration().prefault('6h'),
      },
      ['window'],
    ).prefault({}),
  },
  ['groupWait', 'groupInterval', 'repeatInterval'],
).prefault({});

export type AlertsConfig = z.output<typeof alertsSection>;
