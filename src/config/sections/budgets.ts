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
  },
  ['forecastWindow', 'forecastMinHistory'],
).superRefine((value, issues) => {
  for (const field of ['ids', 'namePattern', 'team', 'owner'] as const) {
    if (value[field] !== undefined && !SELECTABLE.includes(value.scope)) {
      issues.addIssue({ code: 'custom', path: [field], message: `only with scope ${SELECTABLE.join(' or ')}` });
    }
  }
});

/** `budgets`: spending limits per period, each alerting at its thresholds. */
export const budgetsSection = z
  .array(budget)
  .prefault([])
  .superRefine(uniqueNames((name) => `duplicate budget name "${name}"`));

export type BudgetConfig = z.output<typeof budget>;
