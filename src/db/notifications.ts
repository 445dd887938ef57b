import { and, asc, eq, gte, isNull, lt, or, sql } from 'drizzle-orm';
import { type OutboxRow, pruneRows } from './channel-outbox.js';
import { digestGroupKey } from './digest.js';
import type { Database } from './open.js';
import { channelOutbox, notificationLog, outboxPruned } from './schema.js';

/**
 * The email channel's rows of the outbox, in the shape its sender, the replay report and the
 * metrics read (a message with its Message-ID, recipients and rendered text), and every
 * channel's notification log.
 */

const EMAIL = 'email';

export type LogRecord = Omit<typeof notificationLog.$inferSelect, 'channel'>;

/** What the email channel keeps of a message in its row's `payload`. */
export interface EmailPayload {
  /** The Message-ID header, fixed when the message is written, so every attempt carries the same one. */
  messageId: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
}

/** One email as the outbox holds it. */
export type OutboxRecord = ReturnType<typeof toEmailRecord>;

export function toEmailRecord(row: OutboxRow) {
  const payload = row.payload as EmailPayload;
  return {
    id: row.id,
    messageId: payload.messageId,
    groupKey: row.groupKey,
    account: row.account,
    reason: row.reason,
    to: payload.to,
    subject: payload.subject,
    text: payload.text,
    html: payload.html,
    alertKeys: row.alertKeys,
    createdAt: row.createdAt,
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptAt,
    leaseUntil: row.leaseUntil,
    lastError: row.lastError,
    sentAt: row.deliveredAt,
    smtpResponse: row.response,
    abandonedAt: row.abandonedAt,
  };
}

/** The notification log's live entries of `channel` (expired ones count as absent), by group key. */
export async function notificationLogAt(
  database: Database,
  now: number,
  channel = EMAIL,
): Promise<Map<string, LogRecord>> {
  const rows = database.db
    .select()
    .from(notificationLog)
    .where(
      and(
        eq(notificationLog.channel, channel),
        or(isNull(notificationLog.expiresAt), gte(notificationLog.expiresAt, now)),
      ),
    )
    .orderBy(asc(notificationLog.groupKey))
    .all();
  return new Map(rows.map(({ channel: _, ...record }) => [record.groupKey, record]));
}

export function putLogEntry(database: Database, entry: LogRecord, channel = EMAIL): void {
  const { groupKey, ...rest } = entry;
  database.db
    .insert(notificationLog)
    .values({ ...entry, channel })
    .onConflictDoUpdate({ target: [notificationLog.channel, notificationLog.groupKey], set: rest })
    .run();
}

export interface OutboxCounts {
  /** Waiting for their first attempt or a retry. */
  pending: number;
  sent: number;
  abandoned: number;
  /** When the oldest unsent message was written; null when none waits. */
  oldestPendingAt: number | null;
}

/** The email outbox's counts as SQL aggregates, over all messages or per group. */
const countColumns = {
  pending: sql<number>`coalesce(sum(${channelOutbox.finishedAt} IS NULL), 0)`,
  sent: sql<number>`coalesce(sum(${channelOutbox.deliveredAt} IS NOT NULL), 0)`,
  abandoned: sql<number>`coalesce(sum(${channelOutbox.abandonedAt} IS NOT NULL), 0)`,
  oldestPendingAt: sql<
    number | null
  >`min(CASE WHEN ${channelOutbox.finishedAt} IS NULL THEN ${channelOutbox.createdAt} END)`,
};

const emailRows = eq(channelOutbox.channel, EMAIL);

/**
 * How a message channel's outbox (email's by default) stands per account (`all` for messages
 * spanning accounts), for metrics. Sent and abandoned include the messages retention deleted, so
 * they only ever grow. Episode rows (Alertmanager's) are not messages and are not counted.
 */
export async function outboxCountsByAccount(
  database: Database,
  channel: string = EMAIL,
): Promise<Array<OutboxCounts & { account: string }>> {
  const byAccount = new Map(
    database.db
      .select({ account: channelOutbox.account, ...countColumns })
      .from(channelOutbox)
      .where(and(eq(channelOutbox.channel, channel), isNull(channelOutbox.alertId)))
      .groupBy(channelOutbox.account)
      .all()
      .map((row) => [row.account, row]),
  );
  for (const pruned of database.db.select().from(outboxPruned).where(eq(outboxPruned.channel, channel)).all()) {
    const counts = byAccount.get(pruned.account) ?? {
      account: pruned.account,
      pending: 0,
      sent: 0,
      abandoned: 0,
      oldestPendingAt: null,
    };
    byAccount.set(pruned.account, {
      ...counts,
      sent: counts.sent + pruned.sent,
      abandoned: counts.abandoned + pruned.abandoned,
    });
  }
  return [...byAccount.values()].sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0));
}

/** Every message written in [from, to), oldest first (the replay report's emails). */
export async function outboxMessagesBetween(database: Database, from: number, to: number): Promise<OutboxRecord[]> {
  return database.db
    .select()
    .from(channelOutbox)
    .where(and(emailRows, gte(channelOutbox.createdAt, from), lt(channelOutbox.createdAt, to)))
    .orderBy(asc(channelOutbox.id))
    .all()
    .map(toEmailRecord);
}

// Message rows (no alert_id) of every channel finished (delivered or abandoned) before @before and
// not leased, except what a reader still needs: each channel's latest row of each digest group
// (lastDigestAt: without it a second digest goes out the same day) and every row announcing an
// alert still open (the idle ladder reads whether a firing warning reached anyone before it stops
// a Pod, however long ago the warning went out).
// SQL text: the tally and the delete share this condition, with a json_each join.
const PRUNABLE = `alert_id IS NULL AND finished_at IS NOT NULL AND finished_at < @before
  AND (lease_until IS NULL OR lease_until <= @now)
  AND id NOT IN (SELECT max(id) FROM channel_outbox WHERE alert_id IS NULL AND group_key LIKE @digests
    GROUP BY channel, group_key)
  AND NOT EXISTS (SELECT 1 FROM json_each(channel_outbox.alert_keys) k
    JOIN alerts a ON a.key = k.value AND a.resolved_at IS NULL)`;

/**
 * Deletes the message rows of every channel finished before `before` that no reader needs any
 * more (PRUNABLE), counted in outbox_pruned; returns how many. A message still due or leased is
 * never touched, so nothing is lost or sent twice.
 */
export async function pruneFinishedMessages(database: Database, before: number, now: number): Promise<number> {
  return pruneRows(database, PRUNABLE, { before, now, digests: `${digestGroupKey('')}%` });
}
