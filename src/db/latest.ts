import { getTableColumns, getTableName } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import { perDatabase, placeholdersFor, replaceOnConflict, rowWriter } from './statements.js';

type Bookkeeping = 'account' | 'firstSeenAt' | 'lastSeenAt' | 'goneAt';

/** What a collector supplies for one item of a "latest state" table: every field, null when absent. */
export type LatestInput<T extends SQLiteTable> = Omit<T['$inferSelect'], Bookkeeping>;

type LatestTable = SQLiteTable & { account: SQLiteColumn; firstSeenAt: SQLiteColumn; lastSeenAt: SQLiteColumn };
type TrackedTable = LatestTable & { goneAt: SQLiteColumn };

export interface SyncResult {
  upserted: number;
  /** Items newly marked gone by this sync. */
  gone: string[];
}

/**
 * Items the API listed but we could not read: still there, so never marked gone. With an
 * `anonymous` one (no readable id) nothing is marked gone in that sync.
 */
export interface UnreadableItems {
  ids: readonly string[];
  anonymous: boolean;
}

function columnOf(table: SQLiteTable, key: string): SQLiteColumn {
  const column = getTableColumns(table)[key];
  if (!column) throw new Error(`no column ${key}`);
  return column;
}

/**
 * Upsert of "latest state" rows keyed (account, idKey), run inside the caller's transaction: an
 * item keeps its first_seen_at, everything else is replaced, and last_seen_at moves to `now`.
 */
export function latestRows<T extends LatestTable>(table: T, idKey: keyof LatestInput<T> & string) {
  const hasGoneAt = 'goneAt' in getTableColumns(table);
  const statement = perDatabase((database) =>
    rowWriter<Record<string, unknown>>(
      database,
      database.db
        .insert(table)
        // The generic table defeats drizzle's mapped types; the concrete tables check at the call site.
        .values(placeholdersFor(table) as never)
        .onConflictDoUpdate(
          replaceOnConflict(table, [table.account, columnOf(table, idKey)], ['firstSeenAt'] as never) as never,
        ),
    ),
  );
  return (database: Database, account: string, items: readonly LatestInput<T>[], now: number): number => {
    const upsert = statement(database);
    const bookkeeping = hasGoneAt
      ? { account, firstSeenAt: now, lastSeenAt: now, goneAt: null }
      : { account, firstSeenAt: now, lastSeenAt: now };
    for (const item of items) upsert({ ...item, ...bookkeeping });
    return items.length;
  };
}

/**
 * For resources that can vanish (Pods, clusters, endpoints, volumes): upserts the latest list
 * and, in the same transaction, marks gone every live item of the account missing from it. A
 * gone item that comes back is live again. Rows are never deleted.
 */
export function trackedSync<T extends TrackedTable>(table: T, idKey: keyof LatestInput<T> & string) {
  return outsideTransaction(trackedRows(table, idKey));
}

/** trackedSync's synchronous body, for a store function that syncs a list within its own transaction. */
export function trackedRows<T extends TrackedTable>(table: T, idKey: keyof LatestInput<T> & string) {
  const upsertRows = latestRows(table, idKey);
  const id = columnOf(table, idKey).name;
  // Prepared once per database: every inventory poll runs it.
  const markGone = perDatabase((database) =>
    database.sqlite.prepare<[number, string, string], { id: string }>(
      `UPDATE "${getTableName(table)}" SET "${table.goneAt.name}" = ?
       WHERE "${table.account.name}" = ? AND "${table.goneAt.name}" IS NULL
         AND "${id}" NOT IN (SELECT value FROM json_each(?))
       RETURNING "${id}" AS id`,
    ),
  );
  return (
    database: Database,
    account: string,
    items: readonly LatestInput<T>[],
    now: number,
    unreadable: UnreadableItems = { ids: [], anonymous: false },
  ): SyncResult =>
    database.transaction(() => {
      const upserted = upsertRows(database, account, items, now);
      // An item we could not read without its id could be any of them: none is gone for sure.
      if (unreadable.anonymous) return { upserted, gone: [] };
      const seen = JSON.stringify([...items.map((item) => item[idKey]), ...unreadable.ids]);
      const gone = markGone(database)
        .all(now, account, seen)
        .map((row) => row.id);
      return { upserted, gone };
    });
}
