import { and, asc, desc, eq, isNotNull, isNull } from 'drizzle-orm';
import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import { type ReceiptInput, recordReceiptSync } from './receipts.js';
import { actionReceipts, enforceEpisodes } from './schema.js';
import { perDatabase } from './statements.js';

export type EnforceEpisodeRecord = typeof enforceEpisodes.$inferSelect;
export type EnforceEpisodeKey = Pick<EnforceEpisodeRecord, 'account' | 'podId' | 'kind' | 'occurrence'>;
export type EnforceEpisodeChange = Partial<
  Pick<EnforceEpisodeRecord, 'extendedMs' | 'warnedAt' | 'decidedAt' | 'stopFailures' | 'endedAt' | 'endReason'>
>;

/** What one step of an enforcement episode changes: opens it, moves it on, or nothing (a receipt alone). */
export type EnforceEpisodeWrite =
  | { kind: 'open'; episode: EnforceEpisodeRecord }
  | { kind: 'update'; key: EnforceEpisodeKey; change: EnforceEpisodeChange }
  | { kind: 'none' };

const keyIs = (key: EnforceEpisodeKey) =>
  and(
    eq(enforceEpisodes.account, key.account),
    eq(enforceEpisodes.podId, key.podId),
    eq(enforceEpisodes.kind, key.kind),
    eq(enforceEpisodes.occurrence, key.occurrence),
  );

/** The open enforcement episodes of an account (of every account without one), by account, Pod and kind. */
export async function openEnforceEpisodes(database: Database, account?: string): Promise<EnforceEpisodeRecord[]> {
  return database.db
    .select()
    .from(enforceEpisodes)
    .where(
      and(isNull(enforceEpisodes.endedAt), account === undefined ? undefined : eq(enforceEpisodes.account, account)),
    )
    .orderBy(asc(enforceEpisodes.account), asc(enforceEpisodes.podId), asc(enforceEpisodes.kind))
    .all();
}

/** One episode by its key, open or ended. */
export const enforceEpisodeAt = outsideTransaction(enforceEpisodeAtSync);

export function enforceEpisodeAtSync(database: Database, key: EnforceEpisodeKey): EnforceEpisodeRecord | undefined {
  return database.db.select().from(enforceEpisodes).where(keyIs(key)).get();
}

/** Moves an open episode on; a change to an ended one is refused (history is not rewritten). */
export function updateEnforceEpisodeSync(
  database: Database,
  key: EnforceEpisodeKey,
  change: EnforceEpisodeChange,
): void {
  const result = database.db
    .update(enforceEpisodes)
    .set(change)
    .where(and(keyIs(key), isNull(enforceEpisodes.endedAt)))
    .run();
  if (result.changes !== 1) {
    throw new Error(
      `update enforce episode ${key.account}/${key.podId}/${key.kind}@${key.occurrence}: no open episode`,
    );
  }
}

/**
 * One step of an enforcement episode's ladder: the episode's change and its receipts, in one
 * transaction. Returns the receipts written (a receipt whose key exists is skipped: a tick re-run
 * after a crash writes nothing twice).
 */
export async function writeEnforceStep(
  database: Database,
  write: EnforceEpisodeWrite,
  receipts: readonly ReceiptInput[],
): Promise<ReceiptInput[]> {
  return database.transaction(() => {
    if (write.kind === 'open') database.db.insert(enforceEpisodes).values(write.episode).run();
    else if (write.kind === 'update') updateEnforceEpisodeSync(database, write.key, write.change);
    return receipts.filter((receipt) => recordReceiptSync(database, receipt));
  });
}

/** How many enforcement stops (any control, dry run included) the account decided after `since`: for the hourly cap. */
export async function enforceStopsSince(database: Database, account: string, since: number): Promise<number> {
  return stopsSinceStatement(database).get(account, since) ?? 0;
}

// Asked on every tick an enforcement stop is due; the decisions are literals so the stops index applies.
const stopsSinceStatement = perDatabase(({ sqlite }) =>
  sqlite
    .prepare<[string, number], number>(
      `SELECT count(*) FROM action_receipts
       WHERE account = ? AND decided_at > ? AND decision IN ('stopped', 'dry_run') AND kind <> 'idle'`,
    )
    .pluck(),
);

/**
 * Moves an open, undecided episode's stop `byMs` later (Keep running) with its receipt, if it still
 * stands where the caller read it (`fromExtendedMs`); whether it did. The warning named the old
 * time, so the episode is warned again the lead time before the new one.
 */
export function extendEnforceEpisodeSync(
  database: Database,
  key: EnforceEpisodeKey,
  fromExtendedMs: number,
  byMs: number,
  receipt: ReceiptInput,
): boolean {
  const result = database.db
    .update(enforceEpisodes)
    .set({ extendedMs: fromExtendedMs + byMs, warnedAt: null })
    .where(
      and(
        keyIs(key),
        isNull(enforceEpisodes.endedAt),
        isNull(enforceEpisodes.decidedAt),
        eq(enforceEpisodes.extendedMs, fromExtendedMs),
      ),
    )
    .run();
  if (result.changes !== 1) return false;
  recordReceiptSync(database, receipt);
  return true;
}

/** When the episode's stop was last said to come (its latest receipt's planned stop), or null. */
export async function lastPlannedStop(database: Database, key: EnforceEpisodeKey): Promise<number | null> {
  const row = database.db
    .select({ at: actionReceipts.plannedStopAt })
    .from(actionReceipts)
    .where(
      and(
        eq(actionReceipts.account, key.account),
        eq(actionReceipts.podId, key.podId),
        eq(actionReceipts.kind, key.kind),
        eq(actionReceipts.episodeStartedAt, key.occurrence),
        isNotNull(actionReceipts.plannedStopAt),
      ),
    )
    .orderBy(desc(actionReceipts.decidedAt), desc(actionReceipts.id))
    .limit(1)
    .get();
  return row?.at ?? null;
}
