import { z } from 'zod';
import { duration, timeZone, uniqueNames, withMs } from '../fields.js';
import { recipientsField } from './email.js';

/** What a budget counts: the whole account (`/billing`) or one billing route's kind of spend. */
export const BUDGET_SCOPES = ['account', 'pods', 'serverless', 'endpoints', 'network_volumes', 'clusters'] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];

/** The scopes whose resources have ids and names, so `ids` and `namePattern` can choose among them. */
const SELECTABLE: readonly BudgetScope[] = ['pods', 'serverless'];

export const BUDGET_FIGURES = ['actual', 'live', 'forecast'] as const;
export type BudgetFigure = (typeof BUDGET_FIGURES)[number];

export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

const BUDGET_NAME = /^[a-z0-9][a-z0-9_-]*$/;

/** What a budget does once spent: alert only, or stop Pods in its scope too. */
export const ON_SPENT_ACTIONS = ['alert', 'stop'] as const;

/** The scopes whose spend comes from Pods, so stopping Pods lowers it. */
const STOPPABLE: readonly BudgetScope[] = ['account', 'pods'];

const onSpent = withMs(
  {
    action: z
      .enum(ON_SPENT_ACTIONS)
      .default('alert')
      .describe(
        'alert: the budget alerts at its thresholds, nothing more; stop: it also stops the running Pods in its scope, most expensive first, until the rate left fits what is left of the amount (or nothing is left to stop).',
      ),
    threshold: z
      .number()
      .positive()
      .max(100)
      .default(100)
      .describe(
        'The percentage of the amount at which the stop is due (100: when the budget is spent). Below 100 leaves money for the rest of the period, so cheaper Pods can keep running.',
      ),
    warnLead: duration()
      .prefault('30m')
      .describe('How long before the stop the warning goes out (with Keep running links), at the current rate.'),
    dryRun: z.boolean().default(true).describe('Record the whole ladder (warning, guards, receipt) but send no stop.'),
  },
  ['warnLead'],
);

export type OnSpentConfig = z.output<typeof onSpent>;

const budget = withMs(
  {
    name: z.string().regex(BUDGET_NAME, {
      error: (issue) =>
        `invalid budget name "${String(issue.input)}" (expected lowercase letters, digits, "_" and "-")`,
    }),
    /** One configured account; absent: every account together. */
    account: z.string().min(1).optional(),
    scope: z.enum(BUDGET_SCOPES).default('account'),
    /** Pod ids (scope pods) or endpoint ids (scope serverless). */
    ids: z.array(z.string().min(1)).min(1).optional(),
    /** Pod or endpoint names: `*` any run of characters, `?` one character. */
    namePattern: z.string().min(1).optional(),
    team: z
      .string()
      .min(1)
      .optional()
      .describe(
        'With scope pods or serverless: only the resources of this team, as `owners` resolves it from their name and env at each evaluation (and, with ids or namePattern, among those). A team with no resources counts 0.',
      ),
    owner: z
      .string()
      .min(1)
      .optional()
      .describe(
        'With scope pods or serverless: only the resources of this owner, as `owners` resolves it (and, with team, ids or namePattern, among those).',
      ),
    period: z.enum(['day', 'week', 'month']).default('month'),
    timeZone: timeZone().default('UTC'),
    weekStartsOn: z.enum(WEEKDAYS).default('monday'),
    /** The day of the month a monthly budget starts again (1 to 28, so every month has it). */
    monthResetDay: z.int().min(1).max(28).default(1),
    /** USD per period. */
    amount: z.number().positive(),
    /** Percentages of the amount, each its own alert. */
    thresholds: z
      .array(z.number().positive().max(1_000))
      .min(1)
      .prefault([50, 80, 100])
      .transform((list) => [...new Set(list)].sort((a, b) => a - b)),
    /** Which figures alert: billed so far, billed plus not yet billed, projected to the period's end. */
    figures: z.array(z.enum(BUDGET_FIGURES)).min(1).prefault(['actual', 'live', 'forecast']),
    /** The burn rate behind the forecast is the spend over this much recent time. */
    forecastWindow: duration().prefault('24h'),
    /** No forecast (and no forecast alert) until the burn rate rests on this much billing history. */
    forecastMinHistory: duration().prefault('6h'),
    recipients: recipientsField(),
    onSpent: onSpent
      .optional()
      .describe(
        "What happens when the budget is spent; absent: it alerts only. Stopping is for scopes whose spend comes from Pods (account, pods); a stop goes through the idle stop's ladder and guards (warning ahead, locked, Keep running, caps), at most once per Pod and period; it never terminates.",
      ),
  },
  ['forecastWindow', 'forecastMinHistory'],
).superRefine((value, issues) => {
  for (const field of ['ids', 'namePattern', 'team', 'owner'] as const) {
    if (value[field] !== undefined && !SELECTABLE.includes(value.scope)) {
      issues.addIssue({ code: 'custom', path: [field], message: `only with scope ${SELECTABLE.join(' or ')}` });
    }
  }
  if (value.onSpent?.action === 'stop' && !STOPPABLE.includes(value.scope)) {
    issues.addIssue({
      code: 'custom',
      path: ['onSpent', 'action'],
      message: `stop only with scope ${STOPPABLE.join(' or ')} (their spend comes from Pods, which can be stopped); scope ${value.scope} can only alert`,
    });
  }
});

/** `budgets`: spending limits per period, each alerting at its thresholds. */
export const budgetsSection = z
  .array(budget)
  .prefault([])
  .superRefine(uniqueNames((name) => `duplicate budget name "${name}"`));

export type BudgetConfig = z.output<typeof budget>;
