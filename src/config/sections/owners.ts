import { z } from 'zod';
import { emailAddress } from './email.js';

/** The two labels ownership gives a resource; a name pattern must capture at least one of them. */
export const OWNER_FIELDS = ['owner', 'team'] as const;
export type OwnerField = (typeof OWNER_FIELDS)[number];

const envNames = (field: OwnerField) =>
  z
    .array(z.string().min(1))
    .prefault([])
    .describe(`Pod env keys read for the ${field}, in order; the first one set (and not empty) gives it.`);

/** The named groups a pattern can capture: they show only on a match, and `|` makes the empty string match. */
export function groupNames(source: string): string[] {
  return Object.keys(new RegExp(`${source}|`).exec('')?.groups ?? {});
}

/** A regular expression with a named group `owner` or `team` (or both); compiled here so a bad one fails at load. */
const namePattern = z.string().superRefine((source, issues) => {
  let pattern: RegExp;
  try {
    pattern = new RegExp(source);
  } catch (error) {
    issues.addIssue({ code: 'custom', message: `invalid regular expression "${source}": ${(error as Error).message}` });
    return;
  }
  const groups = groupNames(pattern.source);
  if (!OWNER_FIELDS.some((field) => groups.includes(field))) {
    issues.addIssue({
      code: 'custom',
      message: `pattern "${source}" has neither named group (?<owner>…) nor (?<team>…)`,
    });
  }
});

const contact = z
  .strictObject({
    email: z.array(emailAddress()).min(1).optional().describe('Addresses that receive mail for this owner or team.'),
    slack: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe('Slack destination names (of the slack channel) for this owner or team.'),
    webhook: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe('Webhook destination names (of the webhook channel) for this owner or team.'),
  })
  .describe('How to reach one owner or team, per channel.');

/**
 * `owners`: who a Pod, endpoint or volume belongs to. Each of `owner` and `team` is resolved on
 * its own, from the first source that yields a value: the env keys (Pods only), then the name
 * patterns in order, then the default. A resource no source names has no owner (or team): the
 * label is absent, never empty or invented. Absent section: nothing has an owner.
 */
export const ownersSection = z
  .strictObject({
    fromEnv: z
      .strictObject({ owner: envNames('owner'), team: envNames('team') })
      .prefault({})
      .describe('Pod env keys that name the owner and the team; they are stored with the Pod.'),
    fromName: z
      .array(namePattern)
      .prefault([])
      .describe(
        'Regular expressions tried on the resource name in order, with named groups (?<owner>…) and/or (?<team>…), e.g. "^(?<team>[a-z]+)-(?<owner>[a-z]+)-".',
      ),
    default: z
      .strictObject({
        owner: z.string().min(1).optional().describe('The owner of a resource no other source names.'),
        team: z.string().min(1).optional().describe('The team of a resource no other source names.'),
      })
      .prefault({})
      .describe('Used when neither env nor name says; absent: no owner (or team).'),
    contacts: z
      .record(z.string().min(1), contact)
      .prefault({})
      .describe('Per owner or team name: its email addresses and Slack/webhook destination names, used by routes.'),
  })
  .prefault({})
  .describe('Who owns a Pod, endpoint or volume: the `owner` and `team` labels of its findings and alerts.');

export type OwnersConfig = z.output<typeof ownersSection>;
export type OwnerContact = OwnersConfig['contacts'][string];
