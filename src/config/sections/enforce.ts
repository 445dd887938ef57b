import { z } from 'zod';
import { duration, timeZone, uniqueNames, withMs } from '../fields.js';
import { WEEKDAYS } from './budgets.js';
import { podSelector, podSelectorFields } from './idle.js';

const TIME_OF_DAY = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** A local time of day in the schedule's zone. */
const localTime = () =>
  z.string().regex(TIME_OF_DAY, {
    error: (issue) =>
      `invalid time of day "${String(issue.input)}" (expected HH:MM in the schedule's timeZone, e.g. "20:00")`,
  });

/** Which Pods a control covers: every list empty selects every Pod. */
const enforceMatch = () =>
  z
    .strictObject({
      ...podSelectorFields(),
      team: z
        .array(z.string().min(1))
        .prefault([])
        .describe('Teams, as the `owners` section resolves them from the Pod (env keys, name patterns).'),
      owner: z.array(z.string().min(1)).prefault([]).describe('Owners, as the `owners` section resolves them.'),
    })
    .prefault({})
    .describe('Which Pods the control covers; a Pod is selected when any list names it; all lists empty: every Pod.');

const excludeSelector = () =>
  podSelector().describe('Pods never stopped by this control (still warned of nothing; their receipt says why).');

const dryRun = () =>
  z.boolean().default(true).describe('Record the whole ladder (warning, guards, receipt) but send no stop request.');

const deadline = withMs(
  {
    name: z.string().min(1).describe('Names the deadline in alerts, receipts and `podwarden why`.'),
    match: enforceMatch(),
    exclude: excludeSelector(),
    maxRuntime: duration().describe('How long a Pod may run after its last start before it is stopped, e.g. "12h".'),
    warnLead: duration().prefault('30m').describe('How long before the deadline the warning goes out.'),
    extendBy: duration().prefault('2h').describe('How much later a Keep running link moves the deadline.'),
    dryRun: dryRun(),
  },
  ['maxRuntime', 'warnLead', 'extendBy'],
);

const offHours = z
  .strictObject({
    days: z
      .array(z.enum(WEEKDAYS))
      .min(1)
      .prefault([...WEEKDAYS])
      .describe('The days a window starts on (default every day).'),
    from: localTime().default('00:00').describe('When the window starts (HH:MM in the schedule’s timeZone).'),
    to: localTime()
      .default('00:00')
      .describe('When it ends (HH:MM); at or before `from`: the next day (so 00:00 to 00:00 is the whole day).'),
  })
  .describe('One off-hours window per listed day, from `from` to `to`; windows that touch are one.');

const schedule = withMs(
  {
    name: z.string().min(1).describe('Names the schedule in alerts, receipts and `podwarden why`.'),
    match: enforceMatch(),
    exclude: excludeSelector(),
    timeZone: timeZone().default('UTC').describe('The zone the windows’ days and times are read in.'),
    offHours: z.array(offHours).min(1).describe('When the selected Pods should not run.'),
    warnLead: duration().prefault('15m').describe('How long before the window opens the warning goes out.'),
    dryRun: dryRun(),
  },
  ['warnLead'],
);

/** Deadlines a Pod sets itself with the env key PODWARDEN_MAX_RUNTIME (e.g. `12h`). */
const envDeadline = withMs(
  {
    warnLead: duration().prefault('30m').describe('How long before the deadline the warning goes out.'),
    extendBy: duration().prefault('2h').describe('How much later a Keep running link moves the deadline.'),
    dryRun: dryRun(),
  },
  ['warnLead', 'extendBy'],
);

const caps = z
  .strictObject({
    stopsPerHour: z.int().min(1).default(20).describe('At most this many enforcement stops per account and hour.'),
    stopsPerEvaluation: z
      .int()
      .min(1)
      .default(10)
      .describe('At most this many enforcement stops per account and evaluation.'),
    runningShare: z
      .number()
      .gt(0)
      .max(1)
      .default(1)
      .describe(
        'If one evaluation would stop more than this share of the account’s running Pods (and more than one), it stops none; 1: no limit by share.',
      ),
  })
  .prefault({})
  .describe(
    'Limits on enforcement stops (deadlines, schedules, budget caps) together, so a mistake cannot stop every Pod.',
  );

/**
 * `enforce`: stops for reasons other than idleness, each through the same ladder (warning ahead,
 * guards, receipts). Without the section nothing is enforced.
 */
export const enforceSection = z
  .strictObject({
    deadlines: z
      .array(deadline)
      .superRefine(
        uniqueNames((name, first) => `duplicate deadline name "${name}" (also enforce.deadlines[${first}].name)`),
      )
      .prefault([])
      .describe('Maximum runtimes; a Pod belongs to the first deadline that selects it (its env key wins over all).'),
    envDeadline: envDeadline
      .prefault({})
      .describe('How deadlines from a Pod’s env key PODWARDEN_MAX_RUNTIME (e.g. `12h`) are enforced.'),
    schedules: z
      .array(schedule)
      .superRefine(
        uniqueNames((name, first) => `duplicate schedule name "${name}" (also enforce.schedules[${first}].name)`),
      )
      .prefault([])
      .describe('Off-hours windows; a Pod belongs to the first schedule that selects it.'),
    caps,
    stopWithoutDeliveredWarning: z
      .boolean()
      .default(false)
      .describe('Stop even when no channel accepted the warning; off: an undelivered warning holds the stop.'),
  })
  .prefault({})
  .describe('Enforcement stops: deadlines (maximum runtime), off-hours schedules. Dry run by default.');

export type EnforceConfig = z.output<typeof enforceSection>;
export type DeadlineConfig = EnforceConfig['deadlines'][number];
export type ScheduleConfig = EnforceConfig['schedules'][number];
export type EnforceMatch = DeadlineConfig['match'];
