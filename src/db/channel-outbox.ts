import { and, asc, eq, gt, gte, isNull, lt, lte, or, type Placeholder, sql } from 'drizzle-orm';
import type { Database } from './open.js';
import { channelOutbox } from './schema.js';
import { perDatabase } from './statements.js';

/**
 * The store of every channel's durable outbox (tables/outbox.ts): what the shared delivery stage
 * (alerts/deliver.ts) reads, leases and records, whatever the channel. A row is finished once
 * `finishedAt` is set; until then it is due at `nextAttemptAt` unless a live lease holds it.
 */

export type OutboxRow = typeof channelOutbox.$inferSelect;
export type QueuedRow = Pick<
  OutboxRow,
  'channel' | 'groupKey' | 'account' | 'reason' | 'alertKeys' | 'payload' | 'createdAt' | 'nextAttemptAt'
> & { target?: string };

const unfinished = isNull(channelOutbox.finishedAt);
const unleased = (now: number | Placeholder) =>
  or(isNull(channelOutbox.leaseUntil), lte(channelOutbox.leaseUntil, now));

/** Writes a row to deliver (a channel's rendered message); the caller's transaction holds what decided it. */
export function queueRow(database: Database, row: QueuedRow): OutboxRow {
  return database.db.insert(channelOutbox).values(row).returning().get();
}

/** The rows of `channel` (at `target`, when given) due at `now` and not leased, oldest first. */
export async function dueRows(
  database: Database,
  channel: string,
  now: number,
  options: { target?: string; limit?: number } = {},
): Promise<OutboxRow[]> {
  const query = database.db
    .select()
    .from(channelOutbox)
    .where(
      and(
        unfinished,
        eq(channelOutbox.channel, channel),
        options.target === undefined ? undefined : eq(channelOutbox.target, options.target),
        lte(channelOutbox.nextAttemptAt, now),
        unleased(now),
      ),
    )
    .orderBy(asc(channelOutbox.id));
  return options.limit === undefined ? query.all() : query.limit(options.limit).all();
}

/** Every channel's message rows (not episodes) written in [from, to), oldest first: a backtest's report. */
export async function messageRowsBetween(database: Database, from: number, to: number): Promise<OutboxRow[]> {
  return database.db
    .select()
    .from(channelOutbox)
    .where(and(isNull(channelOutbox.alertId), gte(channelOutbox.createdAt, from), lt(channelOutbox.createdAt, to)))
    .orderBy(asc(channelOutbox.id))
    .all();
}

/** Whether any row of `channel` is due at `now` (as dueRows), without reading one. */
export async function hasDueRows(database: Database, channel: string, now: number): Promise<boolean> {
  return dueQuery(database).get({ channel, now }) !== undefined;
}

// Built once per database: every tick asks it for every channel.
const dueQuery = perDatabase((database) => {
  const now = sql.placeholder('now');
  return database.db
    .select({ id: channelOutbox.id })
    .from(channelOutbox)
    .where(
      and(
        unfinished,
        eq(channelOutbox.channel, sql.placeholder('channel')),
        lte(channelOutbox.nextAttemptAt, now),
        unleased(now),
      ),
    )
    .limit(1)
    .prepare();
});

/**
 * Whether `target` of `channel` is waiting out a backoff: one of its rows failed and is not due
 * yet. A channel that delivers in order backs off per target, so its rows arrive in the order written.
 */
export async function targetBackingOff(
  database: Database,
  channel: string,
  target: string,
  now: number,
): Promise<boolean> {
  const row = database.db
    .select({ id: channelOutbox.id })
    .from(channelOutbox)
    .where(
      and(
        unfinished,
        eq(channelOutbox.channel, channel),
        eq(channelOutbox.target, target),
        gt(channelOutbox.attempts, 0),
        gt(channelOutbox.nextAttemptAt, now),
      ),
    )
    .limit(1)
    .get();
  return row !== undefined;
}

/**
 * Takes a row for one attempt until `leaseUntil`: true only for the one caller whose update
 * found it unleased (another daemon on the same database, or an overlapping run, gets false).
 */
export async function claimRow(database: Database, id: number, now: number, leaseUntil: number): Promise<boolean> {
  const result = database.db
    .update(channelOutbox)
    .set({ leaseUntil, attempts: sql`${channelOutbox.attempts} + 1` })
    .where(and(eq(channelOutbox.id, id), unfinished, unleased(now)))
    .run();
  return result.changes === 1;
}

/**
 * The channel took the row at `at`. A message is finished. An episode's delivery (a row with a
 * `state`) is due again at `againAt` while firing and finished once resolved; if the episode
 * resolved while the firing form was on its way, the row stays due to say so.
 */
function recordDelivered(
  database: Database,
  row: Pick<OutboxRow, 'id' | 'state'>,
  at: number,
  response: string | null,
  againAt?: number,
): void {
  const delivered = {
    deliveredAt: sql`coalesce(${channelOutbox.deliveredAt}, ${at})`,
    lastDeliveredAt: at,
    leaseUntil: null,
    lastError: null,
  };
  if (row.state === null) {
    database.db
      .update(channelOutbox)
      .set({ ...delivered, response, finishedAt: at })
      .where(and(eq(channelOutbox.id, row.id), isNull(channelOutbox.deliveredAt)))
      .run();
    return;
  }
  const done = { ...delivered, attempts: 0 };
  const result = database.db
    .update(channelOutbox)
    .set(
      row.state === 'firing' && againAt !== undefined
        ? { ...done, nextAttemptAt: againAt }
        : { ...done, finishedAt: at },
    )
    .where(and(eq(channelOutbox.id, row.id), eq(channelOutbox.state, row.state)))
    .run();
  if (result.changes === 0) {
    database.db
      .update(channelOutbox)
      .set({ deliveredAt: delivered.deliveredAt, lastDeliveredAt: at, attempts: 0, leaseUntil: null })
      .where(eq(channelOutbox.id, row.id))
      .run();
  }
}

/** The attempt failed: the row is due again at `nextAttemptAt`, the lease released. */
function recordRetry(database: Database, id: number, nextAttemptAt: number, error: string): void {
  database.db
    .update(channelOutbox)
    .set({ nextAttemptAt, lastError: error, leaseUntil: null })
    .where(eq(channelOutbox.id, id))
    .run();
}

/** Failed for good: never attempted again (`why` says why). */
function recordAbandoned(database: Database, id: number, at: number, why: string): void {
  database.db
    .update(channelOutbox)
    .set({ abandonedAt: at, finishedAt: at, lastError: why, leaseUntil: null })
    .where(and(eq(channelOutbox.id, id), unfinished))
    .run();
}

/** What one attempt made of one row, as written by recordOutcomes. */
export type RowOutcome =
  | { kind: 'delivered'; row: Pick<OutboxRow, 'id' | 'state'>; response: string | null; againAt?: number }
  | { kind: 'retry'; id: number; nextAttemptAt: number; error: string }
  | { kind: 'failed'; id: number; error: string };

/** The outcomes of one attempt's rows at `at`, in one transaction. */
export async function recordOutcomes(database: Database, outcomes: readonly RowOutcome[], at: number): Promise<void> {
  database.transaction(() => {
    for (const outcome of outcomes) {
      if (outcome.kind === 'delivered') recordDelivered(database, outcome.row, at, outcome.response, outcome.againAt);
      else if (outcome.kind === 'retry') recordRetry(database, outcome.id, outcome.nextAttemptAt, outcome.error);
      else recordAbandoned(database, outcome.id, at, outcome.error);
    }
  });
}

/** Nothing more is delivered for this row, which did not fail (`why` says what closed it). */
export function recordClosed(database: Database, id: number, at: number, why: string): void {
  database.db
    .update(channelOutbox)
    .set({ finishedAt: at, lastError: why, leaseUntil: null })
    .where(and(eq(channelOutbox.id, id), unfinished))
    .run();
}

export interface Delivery {
  /** When the channel first took a row announcing the alert; null while none has been delivered. */
  sentAt: number | null;
  /** Why the latest undelivered one is not out yet (its last error), if it tried. */
  lastError: string | null;
  /** Its recipients, for a channel that has them (email); null for one that has none. */
  to: string[] | null;
}

type DeliveryRow = [
  id: number,
  createdAt: number,
  sentAt: number | null,
  lastError: string | null,
  to: string | null,
  key: string,
];

/**
 * How the rows announcing each alert key fared, each key from its own `since`: the first
 * delivered (the earliest, the oldest on a tie), or else the latest still waiting. A row is
 * written only to the outbox of a channel the alert is routed to, so with every channel (no
 * `channels`) this asks whichever channels carry the alert. Keys without a row are absent. One
 * scan of the outbox from the earliest `since` (the idle ladder asks for every Pod whose stop is
 * due, every tick).
 */
export async function deliveriesOf(
  database: Database,
  since: ReadonlyMap<string, number>,
  channels?: readonly string[],
): Promise<Map<string, Delivery>> {
  if (since.size === 0 || channels?.length === 0) return new Map();
  const from = Math.min(...since.values());
  // SQL text: drizzle has no builder for a join on json_each.
  const rows = database.sqlite
    .prepare<[number, string | null, string | null, string], DeliveryRow>(
      `SELECT o.id, o.created_at, o.delivered_at, o.last_error, json_extract(o.payload, '$.to'), k.value
       FROM channel_outbox o JOIN json_each(o.alert_keys) k
       WHERE o.created_at >= ? AND (? IS NULL OR o.channel IN (SELECT value FROM json_each(?)))
         AND k.value IN (SELECT value FROM json_each(?))
       ORDER BY o.id`,
    )
    .raw()
    .all(
      from,
      channels === undefined ? null : 'channels',
      JSON.stringify(channels ?? []),
      JSON.stringify([...since.keys()]),
    );
  const found = new Map<string, { first: DeliveryRow | undefined; last: DeliveryRow }>();
  for (const row of rows) {
    const [id, createdAt, sentAt, , , key] = row;
    if (createdAt < (since.get(key) ?? Number.POSITIVE_INFINITY)) continue;
    const seen = found.get(key);
    // A key listed twice in one row is one row.
    if (seen?.last[0] === id) continue;
    const first =
      sentAt !== null && (seen?.first === undefined || sentAt < (seen.first[2] as number)) ? row : seen?.first;
    found.set(key, { first, last: row });
  }
  const deliveries = new Map<string, Delivery>();
  for (const [key, { first, last }] of found) {
    const [, , sentAt, lastError, to] = first ?? last;
    deliveries.set(key, { sentAt, lastError, to: to === null ? null : (JSON.parse(to) as string[]) });
  }
  return deliveries;
}

/**
 * Deletes the rows `where` selects (SQL text, a condition on channel_outbox with named `params`),
 * counting them per channel and account, by outcome, in outbox_pruned in the same transaction.
 * Returns how many were deleted.
 */
export function pruneRows(database: Database, where: string, params: Record<string, unknown>): number {
  return database.transaction(() => {
    database.sqlite
      .prepare(
        `INSERT INTO outbox_pruned (channel, account, sent, abandoned)
         SELECT channel, account, sum(delivered_at IS NOT NULL), sum(abandoned_at IS NOT NULL) FROM channel_outbox
         WHERE ${where} GROUP BY channel, account
         ON CONFLICT (channel, account) DO UPDATE SET sent = sent + excluded.sent, abandoned = abandoned + excluded.abandoned`,
      )
      .run(params);
    return database.sqlite.prepare(`DELETE FROM channel_outbox WHERE ${where}`).run(params).changes;
  });
}
