import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import { openSavingSync } from './savings.js';
import { type AnyReceiptEvidence, actionReceipts, type ReceiptDecision, type ReceiptEvidence } from './schema.js';
import { perDatabase, placeholdersFor, rowWriter } from './statements.js';

export type ReceiptRecord = typeof actionReceipts.$inferSelect;
export type ReceiptInput = Omit<ReceiptRecord, 'id'>;

const receiptExists = perDatabase(({ sqlite }) =>
  sqlite.prepare<[string]>('SELECT 1 FROM action_receipts WHERE idempotency_key = ?').pluck(),
);

/** The idle window's evidence of a receipt; undefined for an enforcement receipt (its evidence has no samples). */
export function idleEvidence(evidence: AnyReceiptEvidence): ReceiptEvidence | undefined {
  return 'samples' in evidence ? evidence : undefined;
}

/** The decisions that count as a stop: sent, or what would have been sent in dry run. */
export const STOP_DECISIONS: readonly ReceiptDecision[] = ['stopped', 'dry_run'];

/**
 * Writes a receipt unless one with its idempotency key exists (a tick re-run after a crash).
 * Returns whether it was written. A stop sent opens its saving (savings.ts) with it. A change it records goes with it through a store function
 * (ladder-step.ts), which writes both in one transaction.
 */
export const recordReceipt = outsideTransaction(recordReceiptSync);

/** Whether a receipt with this idempotency key is recorded. */
export const receiptRecorded = outsideTransaction(
  (database: Database, key: string) => receiptExists(database).get(key) !== undefined,
);

/** recordReceipt, for a store function writing it inside its own transaction. */
export function recordReceiptSync(database: Database, receipt: ReceiptInput): boolean {
  // A blocked stop is offered again every tick and written once: the check is a key lookup,
  // where building the insert costs more than the rest of the tick's work for that Pod.
  if (receiptExists(database).get(receipt.idempotencyKey) !== undefined) return false;
  return database.transaction(() => {
    if (insertReceipt(database)(receipt) !== 1) return false;
    if (receipt.decision === 'stopped' && !receipt.dryRun) openSavingSync(database, receipt.idempotencyKey);
    return true;
  });
}

// Prepared once: opening the episodes of a large account writes hundreds of receipts in one tick.
const insertReceipt = perDatabase((database) => {
  const { id: _id, ...columns } = placeholdersFor(actionReceipts);
  return rowWriter<ReceiptInput>(
    database,
    database.db.insert(actionReceipts).values(columns).onConflictDoNothing({ target: actionReceipts.idempotencyKey }),
  );
});

/** The latest receipts, newest first; optionally of one Pod and/or account. */
export async function recentReceipts(
  database: Database,
  limit: number,
  filter: { account?: string; podId?: string } = {},
): Promise<ReceiptRecord[]> {
  return database.db
    .select()
    .from(actionReceipts)
    .where(
      and(
        filter.account === undefined ? undefined : eq(actionReceipts.account, filter.account),
        filter.podId === undefined ? undefined : eq(actionReceipts.podId, filter.podId),
      ),
    )
    .orderBy(desc(actionReceipts.decidedAt), desc(actionReceipts.id))
    .limit(limit)
    .all();
}

export type StopDecision = Awaited<ReturnType<typeof stopsDecided>>[number];

/** Every stop decided (dry run or not), in time order: the replay report's `stops`. */
export async function stopsDecided(database: Database) {
  return database.db
    .select({
      at: actionReceipts.decidedAt,
      account: actionReceipts.account,
      podId: actionReceipts.podId,
      dryRun: actionReceipts.dryRun,
    })
    .from(actionReceipts)
    .where(inArray(actionReceipts.decision, [...STOP_DECISIONS]))
    .orderBy(asc(actionReceipts.decidedAt), asc(actionReceipts.id))
    .all();
}

// The decisions are literals, as in action_receipts_stops_idx's WHERE: SQLite uses a partial
// index only for a query whose WHERE implies the index's, and cannot see that through parameters.
const stopsSinceStatement = perDatabase(({ sqlite }) =>
  sqlite
    .prepare<[string, string, number], number>(
      `SELECT count(*) FROM action_receipts
       WHERE account = ? AND rule = ? AND decided_at > ? AND decision IN ('stopped', 'dry_run')`,
    )
    .pluck(),
);

/** How many stops an idle rule decided in the account after `since` (for the hourly cap). */
export async function stopsSince(database: Database, account: string, rule: string, since: number): Promise<number> {
  return stopsSinceStatement(database).get(account, rule, since) ?? 0;
}
