import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * What each Alertmanager has been told of each alert episode, and what it must be told next:
 * one row per (Alertmanager URL, alert episode). Alertmanager keeps state, not messages, so a
 * row is not one message but the episode's delivery: a firing row is due again every resend
 * interval (its payload, `endsAt` included, is built at each attempt); once the episode
 * resolves the row says `resolved` until that is delivered, and then it is finished.
 * Backoff and lease work as in the email outbox (alerts/retry.ts).
 */
export const alertmanagerOutbox = sqliteTable(
  'alertmanager_outbox',
  {
    id: integer('id').primaryKey(),
    /** The Alertmanager's base URL as configured. */
    target: text('target').notNull(),
    alertId: integer('alert_id').notNull(),
    /** What the next delivery says: `firing` or `resolved`. */
    state: text('state').$type<'firing' | 'resolved'>().notNull(),
    createdAt: integer('created_at').notNull(),
    /** Failed attempts since the last delivery (the backoff's exponent). */
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at').notNull(),
    leaseUntil: integer('lease_until'),
    lastError: text('last_error'),
    lastSentAt: integer('last_sent_at'),
    /** The resolved notice was delivered, or the row was closed (see lastError); nothing more is sent. */
    finishedAt: integer('finished_at'),
  },
  (t) => [
    uniqueIndex('alertmanager_outbox_target_alert_idx').on(t.target, t.alertId),
    index('alertmanager_outbox_due_idx').on(t.finishedAt, t.target, t.nextAttemptAt),
  ],
);
