import { and, asc, eq, gte, isNull, lt, lte, or, sql } from 'drizzle-orm';
import { digestGroupKey } from './digest.js';
import type { Database } from './open.js';
import { notificationLog, outbox, outboxPruned } from './schema.js';
import { perDatabase } from './statements.js';

export type LogRecord = typeof notificationLog.$inferSelect;
export type OutboxRecord = typeof outbox.$inferSelect;
export type OutboxInput = Pick<
  OutboxRecord,
  | 'messageId'
  | 'groupKey'
  | 'account'
  | 'reason'
  | 'to'
  | 'subject'
  | 'text'
  | 'html'
  | 'alertKeys'
  | 'createdAt'
  | 'nextAttemptAt'
>;

type LogRow = [
  groupKey: string,
  receiver: string,
  firing: string,
  resolved: string,
  notifiedAt: number,
  expiresAt: number | null,
];

const logStatement = perDatabase(({ sqlite }) =>
  sqlite
    .prepare<[number], LogRow>(
      `SELECT group_key, receiver, firing, resolved, notified_at, expires_at FROM notification_log
       WHERE expires_at IS NULL OR expires_at >= ?`,
    )
    .raw(),
);

/**
 * Each group's entry as last read, with the text it was parsed from: the pipeline reads the log
 * every tick and it changes only when a message is written, so an unchanged entry is not parsed
 * again (a group's `firing` lists every alert its last message carried). Callers must not modify it.
 */
const parsedLog = perDatabase(() => new Map<string, { texts: string; record: LogRecord }>());

/** The notification log's live entries (expired ones count as absent), by group key. */
export function notificationLogAt(database: Database, now: number): Map<string, LogRecord> {
  const parsed = parsedLog(database);
  const entries = new Map<string, LogRecord>();
  for (const [groupKey, receiver, firing, resolved, notifiedAt, expiresAt] of logStatement(database).all(now)) {
    const texts = `${receiver}\n${firing}\n${resolved}`;
    let seen = parsed.get(groupKey);
    if (seen?.texts !== texts || seen.record.notifiedAt !== notifiedAt || seen.record.expiresAt !== expiresAt) {
      const record = {
        groupKey,
        receiver: JSON.parse(receiver),
        firing: JSON.parse(firing),
        resolved: JSON.parse(resolved),
        notifiedAt,
        expiresAt,
      };
      seen = { texts, record };
      // Entries of groups long gone stay until the map is this large (groups are few).
      if (parsed.size >= 10_000) parsed.clear();
      parsed.set(groupKey, seen);
    }
    entries.set(groupKey, seen.record);
  }
  return entries;
}

export function putLogEntry(database: Database, entry: LogRecord): void {
  const { groupKey, ...rest } = entry;
  database.db
    .insert(notificationLog)
    .values(entry)
    .onConflictDoUpdate({ target: notificationLog.groupKey, set: rest })
    .run();
}

export function insertOutbox(database: Database, message: OutboxInput): OutboxRecord {
  return database.db.insert(outbox).values(message).returning().get();
}

const unfinished = and(isNull(outbox.sentAt), isNull(outbox.abandonedAt));

/** Messages due for an attempt at `now`: not sent, not abandoned, past their backoff and not leased. */
export function dueMessages(database: Database, now: number): OutboxRecord[] {
  return reads(database).due.all({ now });
}

/**
 * Whether any message is due at `now` (as dueMessages), without reading one: every tick asks,
 * and only a tick that has one reads the messages, bodies and all, to send them.
 */
export function hasDueMessages(database: Database, now: number): boolean {
  return anyDueStatement(database).get(now, now) !== undefined;
}

// Plain better-sqlite3: drizzle's prepared `.get()` cost four times the query itself.
const anyDueStatement = perDatabase(({ sqlite }) =>
  sqlite
    .prepare<[number, number], number>(
      `SELECT 1 FROM outbox WHERE sent_at IS NULL AND abandoned_at IS NULL AND next_attempt_at <= ?
       AND (lease_until IS NULL OR lease_until <= ?) LIMIT 1`,
    )
    .pluck(),
);

/** The reads of every evaluation tick, prepared once per database instead of built on each call. */
const reads = perDatabase((database: Database) => {
  const now = sql.placeholder('now');
  return {
    due: database.db
      .select()
      .from(outbox)
      .where(
        and(unfinished, lte(outbox.nextAttemptAt, now), or(isNull(outbox.leaseUntil), lte(outbox.leaseUntil, now))),
      )
      .orderBy(asc(outbox.id))
      .prepare(),
  };
});

/**
 * Takes a message for one attempt until `leaseUntil`: true only for the one caller whose update
 * found it unleased (another daemon on the same database, or an overlapping run, gets false).
 */
export function claimMessage(database: Database, id: number, now: number, leaseUntil: number): boolean {
  const result = database.db
    .update(outbox)
    .set({ leaseUntil, attempts: sql`${outbox.attempts} + 1` })
    .where(and(eq(outbox.id, id), unfinished, or(isNull(outbox.leaseUntil), lte(outbox.leaseUntil, now))))
    .run();
  return result.changes === 1;
}

export function markMessageSent(database: Database, id: number, at: number, smtpResponse: string): void {
  database.db
    .update(outbox)
    .set({ sentAt: at, smtpResponse, leaseUntil: null, lastError: null })
    .where(and(eq(outbox.id, id), isNull(outbox.sentAt)))
    .run();
}

export function markMessageFailed(database: Database, id: number, nextAttemptAt: number, error: string): void {
  database.db.update(outbox).set({ nextAttemptAt, lastError: error, leaseUntil: null }).where(eq(outbox.id, id)).run();
}

export function abandonMessage(database: Database, id: number, at: number, error: string): void {
  database.db
    .update(outbox)
    .set({ abandonedAt: at, lastError: error, leaseUntil: null })
    .where(and(eq(outbox.id, id), unfinished))
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

/** The outbox's counts as SQL aggregates, over all messages or per group. */
const countColumns = {
  pending: sql<number>`coalesce(sum(${outbox.sentAt} IS NULL AND ${outbox.abandonedAt} IS NULL), 0)`,
  sent: sql<number>`coalesce(sum(${outbox.sentAt} IS NOT NULL), 0)`,
  abandoned: sql<number>`coalesce(sum(${outbox.abandonedAt} IS NOT NULL), 0)`,
  oldestPendingAt: sql<
    number | null
  >`min(CASE WHEN ${outbox.sentAt} IS NULL AND ${outbox.abandonedAt} IS NULL THEN ${outbox.createdAt} END)`,
};

/**
 * How the outbox stands per account (`all` for messages spanning accounts), for metrics. Sent
 * and abandoned include the messages retention deleted, so they only ever grow.
 */
export function outboxCountsByAccount(database: Database): Array<OutboxCounts & { account: string }> {
  const byAccount = new Map(
    database.db
      .select({ account: outbox.account, ...countColumns })
      .from(outbox)
      .groupBy(outbox.account)
      .all()
      .map((row) => [row.account, row]),
  );
  for (const pruned of database.db.select().from(outboxPruned).all()) {
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

/** How the outbox stands (for metrics and /api/status), deleted messages counted as in outboxCountsByAccount. */
export function outboxCounts(database: Database): OutboxCounts {
  const row = database.db.select(countColumns).from(outbox).get();
  const counts = row ?? { pending: 0, sent: 0, abandoned: 0, oldestPendingAt: null };
  const pruned = database.db
    .select({
      sent: sql<number>`coalesce(sum(${outboxPruned.sent}), 0)`,
      abandoned: sql<number>`coalesce(sum(${outboxPruned.abandoned}), 0)`,
    })
    .from(outboxPruned)
    .get();
  return { ...counts, sent: counts.sent + (pruned?.sent ?? 0), abandoned: counts.abandoned + (pruned?.abandoned ?? 0) };
}

/** Every message written in [from, to), oldest first (the replay report's emails). */
export function outboxMessagesBetween(database: Database, from: number, to: number): OutboxRecord[] {
  return database.db
    .select()
    .from(outbox)
    .where(and(gte(outbox.createdAt, from), lt(outbox.createdAt, to)))
    .orderBy(asc(outbox.id))
    .all();
}

export interface Delivery {
  /** When the SMTP server accepted the first message announcing the alert; null while none has. */
  sentAt: number | null;
  /** Why the latest undelivered one is not out yet (its last SMTP error), if it tried. */
  lastError: string | null;
  to: string[];
}

/**
 * How the messages announcing `alertKey` written since `since` fared: the first accepted by the
 * SMTP server, or else the latest still waiting; undefined when none was written.
 */
export function deliveryOf(database: Database, alertKey: string, since: number): Delivery | undefined {
  const rows = database.db
    .select({ sentAt: outbox.sentAt, lastError: outbox.lastError, to: outbox.to })
    .from(outbox)
    .where(
      and(
        gte(outbox.createdAt, since),
        sql`exists (select 1 from json_each(${outbox.alertKeys}) where json_each.value = ${alertKey})`,
      ),
    )
    .orderBy(asc(outbox.id))
    .all();
  const sent = rows.filter((row) => row.sentAt !== null).sort((a, b) => (a.sentAt ?? 0) - (b.sentAt ?? 0));
  return sent[0] ?? rows.at(-1);
}

type DeliveryRow = [
  id: number,
  createdAt: number,
  sentAt: number | null,
  lastError: string | null,
  to: string,
  key: string,
];

const deliveriesStatement = perDatabase(({ sqlite }) =>
  sqlite
    .prepare<[number, string], DeliveryRow>(
      `SELECT o.id, o.created_at, o.sent_at, o.last_error, o."to", k.value
       FROM outbox o JOIN json_each(o.alert_keys) k
       WHERE o.created_at >= ? AND k.value IN (SELECT value FROM json_each(?))
       ORDER BY o.id`,
    )
    .raw(),
);

/**
 * deliveryOf for many alert keys at once, each with its own `since`: one scan of the outbox
 * from the earliest of them instead of one per key (the idle ladder asks for every Pod whose
 * stop is due, every tick). Keys without a message are absent.
 */
export function deliveriesOf(database: Database, since: ReadonlyMap<string, number>): Map<string, Delivery> {
  const found = new Map<string, { first: DeliveryRow | undefined; last: DeliveryRow }>();
  if (since.size === 0) return new Map();
  const from = Math.min(...since.values());
  for (const row of deliveriesStatement(database).all(from, JSON.stringify([...since.keys()]))) {
    const [id, createdAt, sentAt, , , key] = row;
    if (createdAt < (since.get(key) ?? Number.POSITIVE_INFINITY)) continue;
    const seen = found.get(key);
    // A key listed twice in one message is one message.
    if (seen?.last[0] === id) continue;
    // The first message the server accepted (the earliest sentAt, the oldest on a tie), else the newest.
    const first =
      sentAt !== null && (seen?.first === undefined || sentAt < (seen.first[2] as number)) ? row : seen?.first;
    found.set(key, { first, last: row });
  }
  const deliveries = new Map<string, Delivery>();
  for (const [key, { first, last }] of found) {
    const [, , sentAt, lastError, to] = first ?? last;
    deliveries.set(key, { sentAt, lastError, to: JSON.parse(to) as string[] });
  }
  return deliveries;
}

// Finished (sent or abandoned) before @before and not leased, except what a reader still needs:
// each account's latest digest (lastDigestAt: without it a second digest goes out the same day)
// and every message announcing an alert still open (the idle ladder reads whether a firing
// warning reached anyone before it stops a Pod, however long ago the warning went out).
const PRUNABLE = `(sent_at IS NOT NULL OR abandoned_at IS NOT NULL)
  AND max(coalesce(sent_at, 0), coalesce(abandoned_at, 0)) < @before
  AND (lease_until IS NULL OR lease_until <= @now)
  AND id NOT IN (SELECT max(id) FROM outbox WHERE group_key LIKE @digests GROUP BY group_key)
  AND NOT EXISTS (SELECT 1 FROM json_each(outbox.alert_keys) k
    JOIN alerts a ON a.key = k.value AND a.resolved_at IS NULL)`;

const pruneStatements = perDatabase(({ sqlite }) => ({
  tally: sqlite.prepare(
    `INSERT INTO outbox_pruned (account, sent, abandoned)
     SELECT account, sum(sent_at IS NOT NULL), sum(abandoned_at IS NOT NULL) FROM outbox WHERE ${PRUNABLE}
     GROUP BY account
     ON CONFLICT (account) DO UPDATE SET sent = sent + excluded.sent, abandoned = abandoned + excluded.abandoned`,
  ),
  delete: sqlite.prepare(`DELETE FROM outbox WHERE ${PRUNABLE}`),
}));

/**
 * Deletes the messages finished before `before` that no reader needs any more (see PRUNABLE),
 * counting them in outbox_pruned in the same transaction. A message still due or leased is
 * never touched, so nothing is lost or sent twice. Returns how many were deleted.
 */
export function pruneFinishedMessages(database: Database, before: number, now: number): number {
  const s = pruneStatements(database);
  const params = { before, now, digests: `${digestGroupKey('')}%` };
  return database.transaction(() => {
    s.tally.run(params);
    return s.delete.run(params).changes;
  });
}
