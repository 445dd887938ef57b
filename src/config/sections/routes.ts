import { z } from 'zod';
import { emailAddress } from './email.js';
import { OWNER_FIELDS } from './owners.js';

const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `/regex/` in a route's match: a regular expression on the whole value; anything else: the exact value. */
export function labelRegexOf(value: string): string | undefined {
  return value.length >= 2 && value.startsWith('/') && value.endsWith('/') ? value.slice(1, -1) : undefined;
}

const matchValue = z
  .string()
  .min(1)
  .superRefine((value, issues) => {
    const regex = labelRegexOf(value);
    if (regex === undefined) return;
    try {
      new RegExp(`^(?:${regex})$`);
    } catch (error) {
      issues.addIssue({
        code: 'custom',
        message: `invalid regular expression "${regex}": ${(error as Error).message}`,
      });
    }
  });

const match = z
  .record(z.string(), matchValue)
  .superRefine((labels, issues) => {
    for (const name of Object.keys(labels)) {
      if (!LABEL_NAME.test(name))
        issues.addIssue({ code: 'custom', path: [name], message: `invalid label name "${name}"` });
    }
  })
  .prefault({})
  .describe(
    'Alert labels and the value each must have, or `/regex/` for a regular expression on the whole value; an absent label reads as "". Empty: every alert.',
  );

/** `owner` and `team` in a route's recipients stand for that label's contact (owners.contacts). */
const OWNER_WORDS = new Set<string>(OWNER_FIELDS);

const address = emailAddress();
const emailEntry = z.string().refine((entry) => OWNER_WORDS.has(entry) || address.safeParse(entry).success, {
  error: (issue) => `invalid recipient "${String(issue.input)}" (expected an email address, "owner" or "team")`,
});
const destinationEntry = z.string().min(1);

const to = z
  .strictObject({
    email: z
      .array(emailEntry)
      .min(1)
      .optional()
      .describe('Addresses, or "owner"/"team": the email of the alert\'s owner or team in owners.contacts.'),
    slack: z
      .array(destinationEntry)
      .min(1)
      .optional()
      .describe('Slack destination names, or "owner"/"team": their Slack destinations in owners.contacts.'),
    webhook: z
      .array(destinationEntry)
      .min(1)
      .optional()
      .describe('Webhook destination names, or "owner"/"team": their webhook destinations in owners.contacts.'),
    alertmanager: z.boolean().optional().describe('true: the alerts also go to alerts.alertmanager.'),
  })
  .refine((value) => Object.values(value).some((entry) => entry !== undefined && entry !== false), {
    error: 'names no channel (set email, slack, webhook or alertmanager)',
  })
  .describe('Where the matched alerts go, per channel; a channel not named here does not get them.');

const route = z
  .strictObject({
    match,
    to,
  })
  .describe('One route: the alerts whose labels `match`, sent `to` these channels and recipients.');

/**
 * `alerts.routes`: the first route whose `match` holds for an alert's labels and that reaches
 * someone for it (an `owner` with no contact reaches nobody) decides its channels and recipients;
 * an alert no route takes goes where `alerts.route` and the recipients say (the default), never
 * nowhere.
 */
export const routesField = () =>
  z
    .array(route)
    .prefault([])
    .describe(
      "Routes by alert label, first match wins: each gives the channels and recipients of the alerts it matches; an alert none matches (or whose route reaches nobody, e.g. an owner without a contact) goes by `alerts.route` and the rule's recipients.",
    );

export type AlertRouteConfig = z.output<typeof route>;

/** Whether a recipient entry stands for the alert's owner or team contact. */
export function isOwnerWord(entry: string): entry is (typeof OWNER_FIELDS)[number] {
  return OWNER_WORDS.has(entry);
}
