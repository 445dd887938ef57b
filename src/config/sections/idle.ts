import { z } from 'zod';
import { duration, uniqueNames, withMs } from '../fields.js';

/** The steps of the idle action ladder, in the order they run. */
export const IDLE_LADDER = ['notify', 'warn', 'stop'] as const;
export type IdleAction = (typeof IDLE_LADDER)[number];

const TIME_OF_DAY = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** `"22:30"` → 1350: minutes after midnight (UTC). The section has validated the text. */
export function minuteOfDay(text: string): number {
  const match = TIME_OF_DAY.exec(text);
  if (!match) throw new Error(`minuteOfDay: invalid time of day "${text}"`);
  return Number(match[1]) * 60 + Number(match[2]);
}

const timeOfDay = () =>
  z.string().regex(TIME_OF_DAY, {
    error: (issue) => `invalid time of day "${String(issue.input)}" (expected HH:MM in UTC, e.g. "22:00")`,
  });

/** The fields that choose Pods by id and name pattern (`*` any run of characters, `?` one character). */
export const podSelectorFields = () => ({
  podIds: z.array(z.string().min(1)).prefault([]).describe('Pod ids.'),
  names: z.array(z.string().min(1)).prefault([]).describe('Pod names: `*` any run of characters, `?` one character.'),
});

/** Pod ids and name patterns. */
export const podSelector = () => z.strictObject(podSelectorFields()).prefault({});

const ladder = z
  .array(z.enum(IDLE_LADDER))
  .min(1)
  .refine((steps) => steps.every((step, index) => step === IDLE_LADDER[index]), {
    // A stop is never sent without a warning that said when it would come.
    error: (issue) =>
      `expected the ladder in order, each step after the ones before it: [notify], [notify, warn] or [notify, warn, stop], got [${(issue.input as string[]).join(', ')}]`,
  });

const idleRule = withMs(
  {
    /** Names the rule in findings, receipts and `podwarden why`. */
    name: z.string().min(1).default('default'),
    /** Which Pods the rule covers; both lists empty: every Pod not claimed by an earlier rule. */
    match: podSelector(),
    /** GPU utilization (%) at or below which every GPU of a sample must be for it to be IDLE. */
    utilThreshold: z.number().min(0).max(100).default(5),
    window: duration().prefault('30m'),
    /** Share of the window the known samples must cover. */
    coverage: z.number().gt(0).max(1).default(0.9),
    minSamples: z.int().min(1).default(3),
    /** No Pod is idle until it has run this long since its (re)start. */
    grace: duration().prefault('15m'),
    heldIdle: z
      .strictObject({
        /** GPU memory use (%) above which an idle GPU holds memory (a model still loaded). */
        memoryThreshold: z.number().min(0).max(100).default(10),
        stop: z.boolean().default(false),
      })
      .prefault({}),
    exclude: podSelector(),
    /** UTC hours during which no Pod is stopped; `from` later than `to` spans midnight. */
    quietHours: z
      .array(
        z.strictObject({
          from: timeOfDay().describe('When the quiet hours start (HH:MM, UTC).'),
          to: timeOfDay().describe('When they end (HH:MM, UTC).'),
        }),
      )
      .prefault([]),
    actions: ladder.prefault(['notify', 'warn', 'stop']),
    /** How long before the stop the warning goes out. */
    warnLead: duration().prefault('15m'),
    dryRun: z.boolean().default(true),
    /**
     * Stop (or dry-run stop) even when the warning was never accepted by the SMTP server. Off: an
     * undelivered warning holds the stop and its receipt says why.
     */
    stopWithoutDeliveredWarning: z.boolean().default(false),
    caps: z
      .strictObject({
        stopsPerHour: z.int().min(1).default(5),
        stopsPerEvaluation: z.int().min(1).default(3),
        /** If one evaluation would stop more than this share of the running Pods, it stops none. */
        runningShare: z.number().gt(0).max(1).default(0.5),
      })
      .prefault({})
      .describe('Limits on how many Pods are stopped, so a mistake cannot stop them all.'),
    /** Stop even when the Pod's GPU type is at availability NONE or LOW (it may not come back). */
    stopWhenScarce: z.boolean().default(false),
  },
  ['window', 'grace', 'warnLead'],
);

/**
 * `idle`: idle-GPU rules. A Pod belongs to the first rule whose `match` selects it. Without the
 * section, one default rule runs in dry run: the whole ladder is recorded, nothing is stopped.
 */
export const idleSection = z
  .strictObject({
    rules: z
      .array(idleRule)
      .superRefine(uniqueNames((name, first) => `duplicate idle rule name "${name}" (also idle.rules[${first}].name)`))
      .prefault([{}])
      .describe(
        'The idle rules, in order; by default one rule with every default (in dry run); [] turns idle stops off.',
      ),
  })
  .prefault({});

export type IdleRuleConfig = z.output<typeof idleRule>;
