import { z } from 'zod';
import { duration, type ParseContext, uniqueNames } from '../fields.js';
import { secretShape, withSecret } from '../secret.js';
import { destinationName } from './destination-name.js';

/** The Slack channel as routing sees it: configured with at least one destination. */
export const slackChannelConfig = {
  name: 'slack',
  configured: (config: { slack?: { destinations: readonly unknown[] } | undefined }) =>
    (config.slack?.destinations.length ?? 0) > 0,
} as const;

function destination(ctx: ParseContext) {
  return withSecret(
    z.strictObject({
      name: destinationName().describe(
        'What routes call this destination (a channel, a team): the recipient name of `slack`.',
      ),
      ...secretShape('webhookUrl', ctx),
    }),
    'webhookUrl',
    { required: true },
  ).superRefine((value, issues) => {
    // The URL is the credential: the message names the field, never the value.
    if (!isHttpUrl(value.webhookUrl)) {
      issues.addIssue({ code: 'custom', path: ['webhookUrl'], message: 'not an http(s) URL' });
    }
  });
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * `slack`: Slack incoming webhooks, each a named destination. A message goes to the destinations
 * its route names, else to the first one (the default). The webhook URL is a secret: anyone who
 * has it can post to the channel.
 */
export function slackSection(ctx: ParseContext) {
  return z
    .strictObject({
      destinations: z
        .array(destination(ctx))
        .min(1, { error: 'at least one destination is required' })
        .superRefine(
          uniqueNames((name, first) => `duplicate destination name "${name}" (also destinations[${first}].name)`),
          { when: (payload) => Array.isArray(payload.value) },
        )
        .describe('The incoming webhooks messages go to; the first is the default.'),
      timeout: duration().prefault('10s').describe('One POST to Slack, from connecting to the end of its answer.'),
      giveUpAfter: duration()
        .prefault('24h')
        .describe('A message not delivered this long after it was written is abandoned (and logged), not sent late.'),
    })
    .transform(({ timeout, giveUpAfter, ...slack }) => ({ ...slack, timeoutMs: timeout, giveUpAfterMs: giveUpAfter }))
    .optional();
}

export type SlackConfig = NonNullable<z.output<ReturnType<typeof slackSection>>>;
export type SlackDestination = SlackConfig['destinations'][number];
