import { randomUUID } from 'node:crypto';
import type { Deliverer, Outcome, Recorded } from '../alerts/deliver.js';
import type { MessageRenderer, RenderedPayload } from '../alerts/outbox.js';
import { LEASE_MS } from '../alerts/retry.js';
import type { OutboxRow } from '../db/channel-outbox.js';
import type { EmailPayload } from '../db/notifications.js';
import { type EmailLinks, emailLinksFor } from '../links/email-links.js';
import type { CommandLine } from '../messages/commands.js';
import type { RenderedMessage } from '../messages/email.js';
import { renderMessage } from '../messages/email.js';
import { renderDigest, renderFlappingNotice } from '../messages/notices.js';
import type { Channel } from './channel.js';
import type { NotificationContext } from './context.js';
import { type Mailer, SendError, smtpMailer } from './email-smtp.js';

/**
 * Email: grouped messages, rendered when queued (the same Message-ID and Date on every attempt,
 * which mail systems use to drop the duplicate of an attempt in doubt), sent one by one over SMTP.
 * Without an email host messages are queued, not sent.
 */

/** An email's payload: the rendered message, its recipients and a Message-ID of its own. */
function emailPayload(to: readonly string[], rendered: RenderedMessage, domain: string): RenderedPayload {
  const payload: EmailPayload = { messageId: `<${randomUUID()}@${domain}>`, to: [...to], ...rendered };
  return { payload };
}

export const emailChannel: Channel = {
  name: 'email',
  notConfigured: 'no email host configured',
  // Message-IDs end in the sender's domain, so they are unique to this installation's mail.
  renderer: async (ctx) =>
    emailRenderer(
      ctx.config.email.from?.split('@')[1] ?? 'podwarden.invalid',
      await emailLinksFor(ctx.db, ctx.config, ctx.clock),
      ctx.commandLine,
    ),
  deliverer(ctx) {
    if (!ctx.config.email.host) return undefined;
    const mailer = ctx.mailer ?? smtpMailer(ctx.config.email);
    return {
      ...emailDeliverer(ctx, mailer),
      close: () => {
        if (mailer !== ctx.mailer) mailer.close();
      },
    };
  },
};

/** Email's wording, from src/messages; `links` adds signed action links (none without `http.publicUrl`). */
export function emailRenderer(domain: string, links?: EmailLinks, commandLine?: CommandLine): MessageRenderer {
  return {
    channel: 'email',
    notification: (notification) =>
      emailPayload(
        notification.receiver,
        renderMessage(notification, { actions: links?.(notification) ?? [], commandLine }),
        domain,
      ),
    flapping: (notice) => emailPayload(notice.recipients, renderFlappingNotice(notice, undefined, commandLine), domain),
    digest: (notice) => emailPayload(notice.recipients, renderDigest(notice, commandLine), domain),
  };
}

const email = (row: OutboxRow) => row.payload as EmailPayload;

/** Sends each message as it was written; see alerts/deliver.ts for what every channel shares. */
export function emailDeliverer(
  ctx: Pick<NotificationContext, 'config' | 'clock' | 'log' | 'events' | 'signal'>,
  mailer: Mailer,
): Deliverer {
  return {
    channel: 'email',
    targets: [''],
    batchSize: 1,
    leaseMs: LEASE_MS,
    inOrder: false,
    giveUpAfterMs: ctx.config.email.giveUpAfterMs,
    undeliverable: (row) =>
      email(row).to.length === 0 ? "no recipients: set email.to or the rule's recipients" : undefined,
    // batchSize 1: every attempt and record has exactly one row.
    async deliver([first]): Promise<Outcome> {
      const row = first as OutboxRow;
      const message = email(row);
      if (row.leaseUntil !== null) {
        ctx.log.warn(
          { messageId: message.messageId },
          'an earlier attempt ended without an outcome (crash?): sending again, same Message-ID',
        );
      }
      try {
        const response = await mailer.send(
          {
            ...message,
            date: row.createdAt,
            headers: { 'X-Podwarden-Alert-Keys': row.alertKeys.join(', '), 'X-Podwarden-Reason': row.reason },
          },
          ctx.signal,
        );
        return { kind: 'delivered', response };
      } catch (error) {
        // Shutdown cut the attempt short before the server accepted it: not sent, not a failure
        // of the server, so the message is due again at once (after the restart).
        if (ctx.signal?.aborted) {
          return {
            kind: 'retry',
            error: 'send abandoned at shutdown before the server accepted it',
            at: ctx.clock.now(),
            unreachable: true,
          };
        }
        // No server to talk to: the others would only wait for the same timeout.
        const unreachable = error instanceof SendError && error.responseCode === undefined;
        return { kind: 'retry', error: (error as Error).message, unreachable };
      }
    },
    recorded([first], outcome: Recorded, at) {
      const row = first as OutboxRow;
      const { messageId, subject, to } = email(row);
      const attempts = row.attempts + 1;
      switch (outcome.kind) {
        case 'delivered':
          ctx.log.info({ messageId, to, subject, attempts }, 'email sent');
          ctx.events.emit('alert:sent', { at, messageId, to, subject });
          return;
        case 'retry':
          if (outcome.at !== undefined) {
            ctx.log.warn({ messageId, subject }, 'email send abandoned at shutdown; it goes out after restart');
            return;
          }
          ctx.log.warn({ messageId, attempts, err: outcome.error }, 'email not sent; will retry');
          return;
        default:
          if (outcome.error.startsWith('no recipients'))
            ctx.log.error({ messageId, subject }, 'email abandoned: no recipients');
          else ctx.log.error({ messageId, subject, lastError: row.lastError }, 'email abandoned');
      }
    },
  };
}
