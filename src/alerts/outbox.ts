import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import {
  abandonMessage,
  claimMessage,
  dueMessages,
  insertOutbox,
  markMessageFailed,
  markMessageSent,
  type OutboxRecord,
  putLogEntry,
} from '../db/notifications.js';
import type { Database } from '../db/open.js';
import type { EventSink } from '../events.js';
import type { Logger } from '../log.js';
import type { CommandLine } from '../messages/commands.js';
import type { Action } from '../messages/view.js';
import type { InflightCounter } from '../scheduler/inflight.js';
import type { EvaluationEvents } from '../tick/context.js';
import { type Mailer, SendError } from './email.js';
import type { Notification } from './pipeline.js';
import { LEASE_MS, retryDelay } from './retry.js';
import { type RenderedMessage, renderMessage } from './templates.js';

/**
 * The durable outbox. Delivery guarantee, in full:
 *
 * - A message is written (with its Message-ID) in the same transaction as the notification-log
 *   entry that records the decision to send it: a crash before the commit leaves neither, and the
 *   next tick decides again; a crash after it leaves both, and the message is sent after restart.
 * - Each attempt first leases the row (an atomic update), so two runs never send it at once.
 * - Success is recorded right after the server accepts the message. If the process dies in the
 *   window between the server's acceptance and that record (one reply and a local commit), the
 *   attempt is in doubt: when its lease runs out the message is sent again, with the same
 *   Message-ID and Date, which mail systems use to drop the duplicate. We choose at-least-once
 *   with a stable Message-ID over at-most-once: a budget alert lost is worse than one seen twice.
 *   Outside that window (SMTP down, refusals, restarts between writing and sending) a message
 *   goes out exactly once.
 * - On shutdown an attempt gets the runtime's grace to finish; one still waiting then is abandoned:
 *   its connection is closed before the server's acceptance, the lease is released and the message
 *   is due at once after the restart. A clean shutdown never records a send it did not see accepted,
 *   and never closes the database under a send whose success it would then fail to record.
 * - Failed attempts are retried with exponential backoff on the daemon's clock; a message not
 *   sent within `giveUpAfter` of being written is abandoned and logged, never sent late.
 */

// The backoff and lease are shared with the Alertmanager outbox (retry.ts).
export { LEASE_MS, RETRY_BASE_MS, RETRY_MAX_MS, retryDelay } from './retry.js';

/**
 * Writes each notification's message to the outbox and its group's log entry, all in one
 * transaction. Log entries expire after twice the repeat interval (never for groups that do not repeat).
 * `links` gives a message its signed action links (links/email-links.ts); none without it.
 */
export function queueNotifications(
  database: Database,
  notifications: readonly Notification[],
  messageDomain: string,
  links?: (notification: Notification) => Action[],
  commandLine?: CommandLine,
): OutboxRecord[] {
  return database.transaction(() =>
    notifications.map((notification) => {
      const { now } = notification;
      const rendered = renderMessage(notification, { actions: links?.(notification) ?? [], commandLine });
      const record = insertOutbox(database, {
        messageId: `<${randomUUID()}@${messageDomain}>`,
        groupKey: notification.groupKey,
        account: accountOf(notification),
        reason: notification.reason,
        to: notification.receiver,
        ...rendered,
        alertKeys: announcedKeys(notification),
        createdAt: now,
        nextAttemptAt: now,
      });
      const repeat = notification.repeatIntervalMs;
      putLogEntry(database, {
        groupKey: notification.groupKey,
        receiver: notification.receiver,
        firing: notification.firing.map((alert) => alert.id),
        resolved: notification.resolved.map((alert) => alert.id),
        notifiedAt: now,
        expiresAt: Number.isFinite(repeat) ? now + 2 * repeat : null,
      });
      return record;
    }),
  );
}

/** The one account a message's alerts concern, or `all` (groupBy may leave `account` out). */
function accountOf(notification: Notification): string {
  const accounts = new Set([...notification.firing, ...notification.resolved].map((alert) => alert.account));
  return accounts.size === 1 ? ([...accounts][0] as string) : 'all';
}

/** A notice that is not a group's message (flapping, digest): written to the outbox as it is. */
export interface QueuedNotice {
  groupKey: string;
  reason: string;
  /** The account the notice concerns, or `all` (metrics and the outbox count by it). */
  account: string;
  to: string[];
  rendered: RenderedMessage;
  alertKeys: string[];
  now: number;
}

export function queueNotice(database: Database, notice: QueuedNotice, messageDomain: string): OutboxRecord {
  return insertOutbox(database, {
    messageId: `<${randomUUID()}@${messageDomain}>`,
    groupKey: notice.groupKey,
    reason: notice.reason,
    account: notice.account,
    to: notice.to,
    ...notice.rendered,
    alertKeys: notice.alertKeys,
    createdAt: notice.now,
    nextAttemptAt: notice.now,
  });
}

/** The alerts a message is about: the new ones, all of them on a repeat, or the resolved ones. */
export function announcedKeys(notification: Notification): string[] {
  switch (notification.reason) {
    case 'first':
    case 'new_alerts':
      return notification.fresh.map((alert) => alert.key);
    case 'repeat_elapsed':
      return notification.firing.map((alert) => alert.key);
    default:
      return notification.resolved.map((alert) => alert.key);
  }
}

export interface DeliveryContext {
  db: Database;
  clock: Clock;
  mailer: Mailer;
  giveUpAfterMs: number;
  log: Logger;
  events: EventSink<Pick<EvaluationEvents, 'alert:sent'>>;
  inflight?: InflightCounter;
  signal?: AbortSignal;
}

export interface DeliveryResult {
  sent: number;
  failed: number;
  abandoned: number;
}

/** One pass over the due messages: each is leased, sent, and its outcome recorded. */
export async function deliverOutbox(ctx: DeliveryContext): Promise<DeliveryResult> {
  const result: DeliveryResult = { sent: 0, failed: 0, abandoned: 0 };
  for (const message of dueMessages(ctx.db, ctx.clock.now())) {
    if (ctx.signal?.aborted) break;
    const now = ctx.clock.now();
    if (now - message.createdAt > ctx.giveUpAfterMs) {
      abandonMessage(
        ctx.db,
        message.id,
        now,
        `not sent within ${Math.round(ctx.giveUpAfterMs / 60_000)}m: ${message.lastError ?? 'no attempt'}`,
      );
      ctx.log.error(
        { messageId: message.messageId, subject: message.subject, lastError: message.lastError },
        'email abandoned',
      );
      result.abandoned++;
      continue;
    }
    if (message.to.length === 0) {
      abandonMessage(ctx.db, message.id, now, "no recipients: set email.to or the rule's recipients");
      ctx.log.error({ messageId: message.messageId, subject: message.subject }, 'email abandoned: no recipients');
      result.abandoned++;
      continue;
    }
    if (!claimMessage(ctx.db, message.id, now, now + LEASE_MS)) continue;
    if (message.leaseUntil !== null) {
      ctx.log.warn(
        { messageId: message.messageId },
        'an earlier attempt ended without an outcome (crash?): sending again, same Message-ID',
      );
    }
    const attempts = message.attempts + 1;
    try {
      const send = ctx.mailer.send(
        {
          messageId: message.messageId,
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
          date: message.createdAt,
          headers: { 'X-Podwarden-Alert-Keys': message.alertKeys.join(', '), 'X-Podwarden-Reason': message.reason },
        },
        ctx.signal,
      );
      const response = await (ctx.inflight ? ctx.inflight.track(send) : send);
      const at = ctx.clock.now();
      markMessageSent(ctx.db, message.id, at, response);
      result.sent++;
      ctx.log.info({ messageId: message.messageId, to: message.to, subject: message.subject, attempts }, 'email sent');
      ctx.events.emit('alert:sent', { at, messageId: message.messageId, to: message.to, subject: message.subject });
    } catch (error) {
      if (ctx.signal?.aborted) {
        // Shutdown cut the attempt short before the server accepted it: not sent, not a failure
        // of the server, so the lease is released and the message is due again at once (after
        // the restart), never marked sent.
        markMessageFailed(
          ctx.db,
          message.id,
          ctx.clock.now(),
          'send abandoned at shutdown before the server accepted it',
        );
        ctx.log.warn(
          { messageId: message.messageId, subject: message.subject },
          'email send abandoned at shutdown; it goes out after restart',
        );
        break;
      }
      const nextAttemptAt = ctx.clock.now() + retryDelay(attempts);
      markMessageFailed(ctx.db, message.id, nextAttemptAt, (error as Error).message);
      result.failed++;
      ctx.log.warn({ messageId: message.messageId, attempts, nextAttemptAt, err: error }, 'email not sent; will retry');
      // No server to talk to: the others would only wait for the same timeout; they go next pass.
      if (error instanceof SendError && error.responseCode === undefined) break;
    }
  }
  return result;
}
