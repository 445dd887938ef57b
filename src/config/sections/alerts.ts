import { z } from 'zod';
import type { RuleName } from '../../rules/finding.js';
import { duration, type ParseContext, withMs } from '../fields.js';
import { alertmanagerSection, routeSection } from './alertmanager.js';

/** Every rule that produces findings, in the order the configuration lists them. */
export const ALERT_RULES = ['budget', 'idle', 'capacity', 'waste', 'health'] as const satisfies readonly RuleName[];

const rules = () => z.array(z.enum(ALERT_RULES));

/**
 * `alerts`: how findings become notifications, in the manner of Alertmanager. Alerts with the
 * same `groupBy` labels and recipients share one message (a digest); a group's first message
 * waits `groupWait` for companions, later ones come at most every `groupInterval`, and a group
 * still firing is repeated every `repeatInterval`.
 */
export function alertsSection(ctx: ParseContext) {
  return withMs(
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
      /** Email, Alertmanager or both, per rule (alertmanager.ts). */
      route: routeSection,
      alertmanager: alertmanagerSection(ctx).optional(),
    },
    ['groupWait', 'groupInterval', 'repeatInterval'],
  )
    .superRefine((alerts, issues) => {
      for (const [rule, channels] of Object.entries(alerts.route)) {
        if (channels?.includes('alertmanager') && alerts.alertmanager === undefined) {
          issues.addIssue({
            code: 'custom',
            path: ['route', rule],
            message: 'routes to alertmanager, but alerts.alertmanager is not set',
          });
        }
      }
    })
    .prefault({});
}

export type AlertsConfig = z.output<ReturnType<typeof alertsSection>>;
