import { z } from 'zod';
import { duration, durationOrZero, type ParseContext, timeZone, withMs } from '../fields.js';
import { alertmanagerSection } from './alertmanager.js';
import { channelName } from './channels.js';
import { ALERT_RULES, perRule } from './rule-names.js';

export { ALERT_RULES } from './rule-names.js';

const rules = () => z.array(z.enum(ALERT_RULES));

/** `alerts.route`: the channels of each rule's alerts; a rule not listed goes to every configured channel. */
const routeSection = perRule(() =>
  z
    .array(channelName)
    .optional()
    .describe("Where this rule's alerts go: email, alertmanager or both; [] notifies nobody."),
).prefault({});

const fireAfter = () =>
  duration().optional().describe("How long this rule's condition must hold before its alert fires; absent: at once.");
const resolveAfter = (fallback: string) =>
  durationOrZero()
    .prefault(fallback)
    .describe("How long this rule's condition must be judged absent before its alert resolves.");

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
      /** A budget's higher threshold mutes its lower ones of the same figure, spend or forecast (100 % mutes 80 % and 50 %). */
      inhibit: z.boolean().default(true),
      /**
       * The rules whose alerts send a notice when they resolve. Not idle by default: a Pod that got
       * busy again needs no mail (a stop it was warned of says so in its own notice).
       */
      sendResolved: rules().prefault(['budget', 'waste', 'health']),
      /**
       * The rules whose alerts are announced once per episode and never repeated. Waste is a slow
       * burn: one mail says what it costs; repeating it every few hours only trains people to ignore it.
       */
      noRepeat: rules().prefault(['budget', 'capacity', 'waste']),
      /**
       * How long a rule's condition must hold before its alert fires (absent: at once). Health waits
       * 30m by default: a Pod poll failing for a few minutes pauses idle stops, which is safe and
       * needs no mail; half an hour of it does.
       */
      for: withMs(perRule(fireAfter).shape, ALERT_RULES).prefault({ health: '30m' }),
      /**
       * How long a rule's condition must be judged absent before its alert resolves (Prometheus'
       * keep_firing_for). Ticks in which the rule could not judge (stale data) do not count.
       */
      resolveAfter: withMs(
        {
          budget: resolveAfter('0s'),
          idle: resolveAfter('15m'),
          enforce: resolveAfter('0s'),
          capacity: resolveAfter('0s'),
          waste: resolveAfter('30m'),
          health: resolveAfter('5m'),
        },
        ALERT_RULES,
      ).prefault({}),
      /**
       * An alert that fires `count` times within `window` flaps: one notice says so and what the
       * pattern costs, then its episodes are not mailed until it settles (no change for `window`).
       */
      flapping: withMs(
        {
          count: z.int().min(2).default(3).describe('Fires within `window` that make an alert flap (at least 2).'),
          window: duration()
            .prefault('6h')
            .describe('The time `count` fires are counted over, and that an alert must stay unchanged to settle.'),
        },
        ['window'],
      ).prefault({}),
      /**
       * The daily digest: once a day at `hour` (local time in `timeZone`), one email per account of
       * what is still open and what podwarden saved since the last one. Absent: no digest.
       */
      digest: z
        .object({
          hour: z.int().min(0).max(23).describe('The hour (0-23, local time in `timeZone`) the digest is sent at.'),
          timeZone: timeZone().default('UTC'),
        })
        .optional(),
      /** Email, Alertmanager or both, per rule. */
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
