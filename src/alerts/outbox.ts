import type { QueuedRow } from '../db/channel-outbox.js';
import type { PlannedMessage } from '../db/plan-inputs.js';
import type { NotifyAlert } from './alert.js';
import type { DigestNotice, FlappingNotice } from './notices.js';
import type { Notification } from './pipeline.js';

/**
 * The queue stage of every message channel: a notification, rendered by its channel, is written
 * to the outbox in the same transaction as its notification-log entry (db/plan-inputs.ts), so a
 * crash leaves both (sent after restart) or neither (decided again next tick).
 */

/** What a channel makes of a message when it is queued: what its outbox row keeps, delivered as is. */
export interface RenderedPayload {
  payload: unknown;
  /** The destination it goes to, for a channel of named destinations (webhook); '' by default. */
  target?: string;
}

/** One row per destination: a channel of named destinations renders a message once for each. */
export type Rendered = RenderedPayload | readonly RenderedPayload[];

const each = (rendered: Rendered): readonly RenderedPayload[] => ('payload' in rendered ? [rendered] : rendered);

/**
 * How a message channel renders what the stages decide (src/channels own the wording, through
 * src/messages). A channel without `digest` gets no daily digest.
 */
export interface MessageRenderer {
  channel: string;
  notification(notification: Notification): Rendered;
  flapping(notice: FlappingNotice): Rendered;
  digest?(notice: DigestNotice): Rendered;
}

/**
 * A notification's messages as its channel renders them (one per destination), the first with
 * its group's log entry. Log entries expire after twice the repeat interval (never for groups
 * that do not repeat).
 */
export function notificationMessages(notification: Notification, renderer: MessageRenderer): PlannedMessage[] {
  const { now } = notification;
  const repeat = notification.repeatIntervalMs;
  const rows = each(renderer.notification(notification)).map((rendered) => ({
    channel: renderer.channel,
    groupKey: notification.groupKey,
    account: accountOf(notification),
    reason: notification.reason,
    alertKeys: announcedAlerts(notification).map((alert) => alert.key),
    ...rendered,
    createdAt: now,
    nextAttemptAt: now,
  }));
  return rows.map((row, index) => ({
    row,
    log:
      index > 0
        ? undefined
        : {
            groupKey: notification.groupKey,
            receiver: notification.receiver,
            firing: notification.firing.map((alert) => alert.id),
            resolved: notification.resolved.map((alert) => alert.id),
            notifiedAt: now,
            expiresAt: Number.isFinite(repeat) ? now + 2 * repeat : null,
          },
  }));
}

/** The one account a message's alerts concern, or `all` (groupBy may leave `account` out). */
function accountOf(notification: Notification): string {
  const accounts = new Set([...notification.firing, ...notification.resolved].map((alert) => alert.account));
  return accounts.size === 1 ? ([...accounts][0] as string) : 'all';
}

/**
 * The outbox rows of a notice that is not a group's message (flapping, digest), written as
 * rendered, one per destination; its account is the one it concerns, or `all` (metrics and the
 * outbox count by it).
 */
export function noticeRows({
  rendered,
  now,
  ...row
}: Omit<QueuedRow, 'payload' | 'createdAt' | 'nextAttemptAt'> & { rendered: Rendered; now: number }): QueuedRow[] {
  return each(rendered).map((one) => ({ ...row, ...one, createdAt: now, nextAttemptAt: now }));
}

/** The alerts a message is about: the new ones, all of them on a repeat, or the resolved ones. */
export function announcedAlerts(notification: Notification): readonly NotifyAlert[] {
  switch (notification.reason) {
    case 'first':
    case 'new_alerts':
      return notification.fresh;
    case 'repeat_elapsed':
      return notification.firing;
    default:
      return notification.resolved;
  }
}
