import { z } from 'zod';
import { duration, type ParseContext, uniqueNames } from '../fields.js';
import { secretShape, withSecret } from '../secret.js';
import { destinationName } from './destination-name.js';

/** The webhook channel as routing sees it: configured with at least one destination. */
export const webhookChannelConfig = {
  name: 'webhook',
  configured: (config: { webhook: { destinations: readonly unknown[] } }) => config.webhook.destinations.length > 0,
} as const;

/** Kept as written (a trailing slash included): a receiver's path is its own business. */
function webhookUrl() {
  return z.string().refine(
    (text) => {
      try {
        const url = new URL(text);
        return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '';
      } catch {
        return false;
      }
    },
    {
      error: (issue) =>
        `invalid URL "${String(issue.input)}" (expected an http:// or https:// URL without credentials)`,
    },
  );
}

function destination(ctx: ParseContext) {
  return withSecret(
    z.strictObject({
      name: destinationName().describe(
        'What routes and logs call this destination (its outbox rows are kept under this name).',
      ),
      url: webhookUrl().describe('Where each notification is POSTed as JSON.'),
      // An HMAC key a receiver shares: short ones are guessed offline from one signed delivery.
      ...secretShape('secret', ctx, { minLength: 16 }),
    }),
    'secret',
    { required: true },
  );
}

/**
 * `webhook`: named destinations that get every notification as signed, versioned JSON
 * (docs/webhooks.md). The first is the default: a notification goes to the destinations its
 * route names, or else to the first.
 */
export function webhookSection(ctx: ParseContext) {
  return z
    .strictObject({
      destinations: z
        .array(destination(ctx))
        .superRefine(uniqueNames((name, first) => `destination "${name}" is already defined at index ${first}`))
        .prefault([])
        .describe('Where notifications are POSTed; the first is the default. None: the channel is off.'),
      /** One POST, from connecting to the end of the answer. */
      timeout: duration()
        .prefault('10s')
        .describe('How long one POST may take, from connecting to the end of the answer.'),
      giveUpAfter: duration()
        .prefault('24h')
        .describe(
          'A notification not delivered this long after it was written is abandoned (and logged), not sent late.',
        ),
    })
    .transform(({ timeout, giveUpAfter, ...section }) => ({
      ...section,
      timeoutMs: timeout,
      giveUpAfterMs: giveUpAfter,
    }))
    .prefault({});
}

export type WebhookConfig = z.output<ReturnType<typeof webhookSection>>;
export type WebhookDestination = WebhookConfig['destinations'][number];
