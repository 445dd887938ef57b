import { and, asc, desc, eq, gte, inArray, lte, sql } from 'drizzle-orm';
import { type OutboxRow, type QueuedRow, queueRow } from './channel-outbox.js';
import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import { STOP_DECISIONS } from './receipts.js';
import { actionReceipts, channelOutbox, enforceEpisodes, idleEpisodes, pods } from './schema.js';

/**
 * What the daily digest reads besides the alerts: when the account's last digest was written
 * (the outbox row itself is the record, written in the transaction that decides it, so a
 * restart never sends a second one the same day), and the stops since then with what has become
 * of their Pods.
 */

export function digestGroupKey(account: string): string {
  return `digest:${account}`;
}

/** When the account's latest digest was queued for `channel`; null if it never had one. */
export const lastDigestAt = outsideTransaction(lastDigestAtSync);

function lastDigestAtSync(database: Database, account: string, channel = 'email'): number | null {
  const row = database.db
    .select({ createdAt: channelOutbox.createdAt })
    .from(channelOutbox)
    .where(and(eq(channelOutbox.channel, channel), eq(channelOutbox.groupKey, digestGroupKey(account))))
    .orderBy(desc(channelOutbox.createdAt))
    .limit(1)
    .get();
  return row?.createdAt ?? null;
}

/**
 * A stop with what became of it: when the episode of the stop (idle or enforcement) ended (null while open) and
 * the Pod as last seen (its status, when it last started, when it vanished).
 */
export type StopSince = Awaited<ReturnType<typeof stopsBetween>>[number];

/** The account's stops (sent or dry run) decided in [from, to], oldest first. */
export async function stopsBetween(database: Database, account: string, from: number, to: number) {
  return database.db
    .select({
      podId: actionReceipts.podId,
      podName: actionReceipts.podName,
      decidedAt: actionReceipts.decidedAt,
      dryRun: actionReceipts.dryRun,
      savingPerHr: actionReceipts.savingPerHr,
      // The episode of the stop's kind: an idle spell, or an enforcement episode (its occurrence).
      episodeEndedAt: sql<number | null>`coalesce(${idleEpisodes.endedAt}, ${enforceEpisodes.endedAt})`,
      podStatus: pods.status,
      podStartedAt: pods.startedAt,
      podGoneAt: pods.goneAt,
    })
    .from(actionReceipts)
    .leftJoin(
      idleEpisodes,
      and(
        eq(idleEpisodes.account, actionReceipts.account),
        eq(idleEpisodes.podId, actionReceipts.podId),
        eq(idleEpisodes.startedAt, actionReceipts.episodeStartedAt),
        eq(actionReceipts.kind, 'idle'),
      ),
    )
    .leftJoin(
      enforceEpisodes,
      and(
        eq(enforceEpisodes.account, actionReceipts.account),
        eq(enforceEpisodes.podId, actionReceipts.podId),
        eq(enforceEpisodes.kind, actionReceipts.kind),
        eq(enforceEpisodes.occurrence, actionReceipts.episodeStartedAt),
      ),
    )
    .leftJoin(pods, and(eq(pods.account, actionReceipts.account), eq(pods.podId, actionReceipts.podId)))
    .where(
      and(
        eq(actionReceipts.account, account),
        inArray(actionReceipts.decision, [...STOP_DECISIONS]),
        gte(actionReceipts.decidedAt, from),
        lte(actionReceipts.decidedAt, to),
      ),
    )
    .orderBy(asc(actionReceipts.decidedAt), asc(actionReceipts.id))
    .all();
}

/**
 * Queues the account's digest (its rows of one channel, one per destination) unless that channel
 * queued one since `dayStart`, in one transaction: the check is made again where the rows are
 * written, so two evaluations never queue two digests the same day. Returns the rows written.
 */
export async function queueDigestOnce(
  database: Database,
  account: string,
  dayStart: number,
  rows: readonly QueuedRow[],
): Promise<OutboxRow[]> {
  return database.transaction(() => {
    const channel = rows[0]?.channel;
    if (channel === undefined) return [];
    const last = lastDigestAtSync(database, account, channel);
    if (last !== null && last >= dayStart) return [];
    return rows.map((row) => queueRow(database, row));
  });
}
