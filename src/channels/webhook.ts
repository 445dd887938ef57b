import { randomUUID } from 'node:crypto';
import type { Deliverer, Outcome, Recorded } from '../alerts/deliver.js';
import type { MessageRenderer, RenderedPayload } from '../alerts/outbox.js';
import type { WebhookConfig } from '../config/sections/webhook.js';
import type { OutboxRow } from '../db/channel-outbox.js';
import { type EmailLinks, emailLinksFor } from '../links/email-links.js';
import type { CommandLine } from '../messages/commands.js';
import {
  digestPayload,
  flappingPayload,
  notificationPayload,
  type WebhookPayload,
} from '../messages/webhook-payload.js';
import type { Channel } from './channel.js';
import type { NotificationContext } from './context.js';
import { postWebhook } from './webhook-client.js';
import { DELIVERY_HEADER, SIGNATURE_HEADER, signatureHeader } from './webhook-signature.js';

/**
 * The generic webhook: grouped messages as versioned JSON (messages/webhook-payload.ts), one
 * outbox row per destination, each POSTed signed (webhook-signature.ts). The row keeps the
 * payload as rendered, so every attempt sends the same body and the same delivery id; only the
 * signature's timestamp is new, so a receiver's replay window measures the attempt, not the row.
 */

/** How long an attempt holds its row beyond the POST's timeout. */
const LEASE_MARGIN_MS = 60_000;

/**
 * The destinations a message goes to: those of its recipients this channel knows by name, or
 * else the default (the first). A route names destinations; until it does, recipients are
 * email addresses, which name none.
 */
export function destinationsOf(recipients: readonly string[], names: readonly string[]): string[] {
  const named = names.filter((name) => recipients.includes(name));
  return named.length > 0 ? named : names.slice(0, 1);
}

export const webhookChannel: Channel = {
  name: 'webhook',
  notConfigured: 'no webhook destination configured',
  renderer: async (ctx) =>
    webhookRenderer(
      ctx.config.webhook.destinations.map((destination) => destination.name),
      await emailLinksFor(ctx.db, ctx.config, ctx.clock),
      ctx.commandLine,
    ),
  deliverer(ctx) {
    const section = ctx.config.webhook;
    return section.destinations.length === 0 ? undefined : webhookDeliverer(ctx, section);
  },
};

/**
 * The webhook's rendering: a payload per destination, each with a delivery id of its own.
 * `links` adds the signed Keep running / Silence links email carries (none without `http.publicUrl`).
 */
export function webhookRenderer(
  destinations: readonly string[],
  links?: EmailLinks,
  commandLine?: CommandLine,
  deliveryId: () => string = randomUUID,
): MessageRenderer {
  // Without a destination (a route naming `webhook` before any is configured) the message is
  // still written, under no target: kept, as email keeps its mail without a host, so the group's
  // log records it and it is not planned again every tick.
  const each = (recipients: readonly string[], build: (id: string) => WebhookPayload): RenderedPayload[] => {
    const targets = destinationsOf(recipients, destinations);
    return (targets.length > 0 ? targets : ['']).map((target) => ({ target, payload: build(deliveryId()) }));
  };
  return {
    channel: 'webhook',
    notification: (notification) =>
      each(notification.receiver, (id) =>
        notificationPayload(notification, id, { actions: links?.(notification) ?? [], commandLine }),
      ),
    // Every message channel is offered these whatever the routes: without a destination none
    // asked for them, so nothing is written (a row would wait for ever, then be abandoned).
    flapping: (notice) =>
      destinations.length === 0 ? [] : each(notice.recipients, (id) => flappingPayload(notice, id, commandLine)),
    digest: (notice) =>
      destinations.length === 0 ? [] : each(notice.recipients, (id) => digestPayload(notice, id, commandLine)),
  };
}

const payloadOf = (row: OutboxRow) => row.payload as WebhookPayload;

/** Each row POSTed to its destination; see alerts/deliver.ts for what every channel shares. */
export function webhookDeliverer(
  ctx: Pick<NotificationContext, 'clock' | 'log' | 'signal'>,
  section: WebhookConfig,
): Deliverer {
  const log = ctx.log.child({ output: 'webhook' });
  const byName = new Map(section.destinations.map((destination) => [destination.name, destination]));
  return {
    channel: 'webhook',
    // '' last: rows written while no destination was configured, abandoned (undeliverable).
    targets: [...section.destinations.map((destination) => destination.name), ''],
    batchSize: 1,
    leaseMs: section.timeoutMs + LEASE_MARGIN_MS,
    inOrder: false,
    giveUpAfterMs: section.giveUpAfterMs,
    undeliverable: (row) => {
      if (row.target === '') return 'written while no webhook destination was configured';
      return byName.has(row.target) ? undefined : `destination "${row.target}" is no longer configured`;
    },
    // batchSize 1: every attempt and record has exactly one row.
    async deliver([first], target): Promise<Outcome> {
      const row = first as OutboxRow;
      const destination = byName.get(target);
      if (destination === undefined) return { kind: 'failed', error: `destination "${target}" is not configured` };
      const body = JSON.stringify(row.payload);
      const at = ctx.clock.now();
      const answer = await postWebhook(
        destination.url,
        body,
        {
          [SIGNATURE_HEADER]: signatureHeader(destination.secret, at, body),
          [DELIVERY_HEADER]: payloadOf(row).deliveryId,
        },
        { timeoutMs: section.timeoutMs, now: at, signal: ctx.signal },
      );
      const { status } = answer;
      if (status !== undefined && status >= 200 && status < 300) return { kind: 'delivered', response: answer.detail };
      if (status === undefined || status === 408 || status === 429 || status >= 500) {
        const after = answer.retryAfterMs;
        return {
          kind: 'retry',
          error: answer.detail,
          // The destination's other rows would meet the same answer: they wait for the next pass.
          unreachable: true,
          at: after === undefined ? undefined : ctx.clock.now() + after,
        };
      }
      // Any other answer (a 4xx, a redirect) says this request is wrong: a person must look.
      return { kind: 'failed', error: answer.detail };
    },
    recorded([first], outcome: Recorded, _at, target) {
      const row = first as OutboxRow;
      const { deliveryId, headline } = payloadOf(row);
      const fields = { destination: target, deliveryId, headline, attempts: row.attempts + 1 };
      switch (outcome.kind) {
        case 'delivered':
          log.info(fields, 'webhook delivered');
          return;
        case 'retry':
          log.warn({ ...fields, err: outcome.error }, 'webhook not delivered; will retry');
          return;
        default:
          log.error({ ...fields, err: outcome.error }, 'webhook abandoned');
      }
    },
  };
}
