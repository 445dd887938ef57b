import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * One row per alert episode: from the tick a rule first reported the key until the tick it no
 * longer did. Pending, firing and resolved are read from the timestamps (alerts/state.ts), never
 * stored as a status. A key has at most one open episode; a key that comes back opens a new one.
 */
export const alerts = sqliteTable(
  'alerts',
  {
    id: integer('id').primaryKey(),
    key: text('key').notNull(),
    rule: text('rule').notNull(),
    /** The configured account, or `all` for a budget over every account. */
    account: text('account').notNull(),
    severity: text('severity').notNull(),
    summary: text('summary').notNull(),
    labels: text('labels', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    details: text('details', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    /** The rule's own recipients; null means the email section's default ones. */
    recipients: text('recipients', { mode: 'json' }).$type<string[]>(),
    activeSince: integer('active_since').notNull(),
    lastSeenAt: integer('last_seen_at').notNull(),
    firedAt: integer('fired_at'),
    resolvedAt: integer('resolved_at'),
    /**
     * The first tick that judged the condition absent since it was last seen; null while it holds
     * or was not judged. The episode resolves once this is `resolveAfter` old (alerts/state.ts).
     */
    absentSince: integer('absent_since'),
  },
  (t) => [
    uniqueIndex('alerts_open_key_idx').on(t.key).where(sql`resolved_at IS NULL`),
    index('alerts_fired_at_idx').on(t.firedAt),
    // How often a key fired lately (flap detection, at every fire): without it, each fire read
    // every episode fired within the window.
    index('alerts_key_fired_at_idx').on(t.key, t.firedAt),
    index('alerts_resolved_at_idx').on(t.resolvedAt),
  ],
);

/**
 * Alert keys that fire and resolve over and over (alerts/flapping.ts). While a key flaps (from
 * `since` until `settledAt`), its episodes are not mailed one by one: one notice says it flaps,
 * then the digest carries it. `lastChangeAt` is the key's latest fire or resolve; the flap
 * settles once that is a whole flap window old.
 */
export const alertFlaps = sqliteTable(
  'alert_flaps',
  {
    id: integer('id').primaryKey(),
    key: text('key').notNull(),
    rule: text('rule').notNull(),
    account: text('account').notNull(),
    since: integer('since').notNull(),
    lastChangeAt: integer('last_change_at').notNull(),
    /** When its notice was written to the outbox; null until then. */
    noticedAt: integer('noticed_at'),
    settledAt: integer('settled_at'),
  },
  (t) => [uniqueIndex('alert_flaps_open_key_idx').on(t.key).where(sql`settled_at IS NULL`)],
);

/**
 * What each notification group of each channel was last told (Alertmanager's notification log): the ids of the
 * firing and resolved alerts of its last message. Written in the transaction that queues the
 * message, so a restart neither forgets nor repeats a notification.
 */
export const notificationLog = sqliteTable(
  'notification_log',
  {
    /** The channel the group's messages go to: each channel's groups are told apart. */
    channel: text('channel').notNull().default('email'),
    groupKey: text('group_key').notNull(),
    receiver: text('receiver', { mode: 'json' }).$type<string[]>().notNull(),
    firing: text('firing', { mode: 'json' }).$type<number[]>().notNull(),
    resolved: text('resolved', { mode: 'json' }).$type<number[]>().notNull(),
    notifiedAt: integer('notified_at').notNull(),
    /** After this the entry counts as absent; null for groups that never repeat. */
    expiresAt: integer('expires_at'),
  },
  (t) => [primaryKey({ columns: [t.channel, t.groupKey] })],
);

export interface SilenceMatcher {
  name: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

/** Silences made with `podwarden silence add`; active from startsAt until endsAt (expiring moves endsAt). */
export const silences = sqliteTable(
  'silences',
  {
    id: text('id').primaryKey(),
    matchers: text('matchers', { mode: 'json' }).$type<SilenceMatcher[]>().notNull(),
    comment: text('comment').notNull(),
    createdBy: text('created_by').notNull(),
    /** `command`, `email link` or `status page` (tables/idle.ts decisionSources). */
    source: text('source').notNull().default('command'),
    createdAt: integer('created_at').notNull(),
    startsAt: integer('starts_at').notNull(),
    endsAt: integer('ends_at').notNull(),
  },
  (t) => [index('silences_ends_at_idx').on(t.endsAt)],
);
