import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * Every channel's durable outbox: what each channel must deliver, and what became of it. A row
 * is written before any attempt, in the transaction that decides it, and its outcome is read
 * from the timestamps. Two kinds of row share it:
 *
 * - a message (email): one notification as the channel rendered it when it was queued
 *   (`payload`), delivered once; `groupKey` is its notification group;
 * - an episode's delivery (Alertmanager): one row per (target, alert episode) that keeps the
 *   receiver in sync with the episode's `state`; a firing row is due again every resend
 *   interval and finishes once its resolved form is delivered. `payload` is null: it is built
 *   at each attempt.
 *
 * Backoff, lease and give-up are the same for every channel (alerts/retry.ts).
 */
export const channelOutbox = sqliteTable(
  'channel_outbox',
  {
    id: integer('id').primaryKey(),
    /** The channel that delivers the row (`email`, `alertmanager`). */
    channel: text('channel').notNull(),
    /** Where the channel delivers it: an Alertmanager URL; '' for a channel with one destination. */
    target: text('target').notNull().default(''),
    groupKey: text('group_key').notNull(),
    /** The one account the row's alerts concern, or `all` when they span several. */
    account: text('account').notNull().default('all'),
    reason: text('reason').notNull(),
    /** The alert keys the row announces (a message: new, all firing on a repeat, or resolved). */
    alertKeys: text('alert_keys', { mode: 'json' }).$type<string[]>().notNull(),
    /** An episode's delivery: the alert it keeps in sync, and what its next delivery says. */
    alertId: integer('alert_id'),
    state: text('state').$type<'firing' | 'resolved'>(),
    /** What the channel delivers, as it rendered it when the row was queued (JSON). */
    payload: text('payload', { mode: 'json' }).$type<unknown>(),
    createdAt: integer('created_at').notNull(),
    /** Attempts so far (a message) or failed attempts since the last delivery (an episode's). */
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at').notNull(),
    /** Set when an attempt starts; an attempt whose lease ran out without an outcome is in doubt. */
    leaseUntil: integer('lease_until'),
    lastError: text('last_error'),
    /** When the channel first took the row, and when it last did (an episode is delivered again). */
    deliveredAt: integer('delivered_at'),
    lastDeliveredAt: integer('last_delivered_at'),
    /** What the receiver answered to the delivery (an SMTP reply). */
    response: text('response'),
    /** Failed for good: never delivered, and never attempted again. */
    abandonedAt: integer('abandoned_at'),
    /** Nothing more is attempted: delivered for good, abandoned or closed (see lastError). */
    finishedAt: integer('finished_at'),
  },
  (t) => [
    index('channel_outbox_due_idx').on(t.finishedAt, t.channel, t.target, t.nextAttemptAt),
    index('channel_outbox_created_at_idx').on(t.createdAt),
    index('channel_outbox_group_idx').on(t.groupKey),
    uniqueIndex('channel_outbox_episode_idx').on(t.channel, t.target, t.alertId).where(sql`alert_id IS NOT NULL`),
  ],
);

/**
 * How many finished rows of each channel and account retention deleted from the outbox, by
 * outcome: podwarden_emails_total is counted from the outbox, and a counter must never go down.
 */
export const outboxPruned = sqliteTable(
  'outbox_pruned',
  {
    channel: text('channel').notNull(),
    account: text('account').notNull(),
    sent: integer('sent').notNull().default(0),
    abandoned: integer('abandoned').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.channel, t.account] })],
);
