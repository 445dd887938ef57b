import { getTableColumns, getTableName } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Database } from './open.js';
import {
  dataVersion,
  inventoryChanged,
  perDatabase,
  placeholdersFor,
  replaceOnConflict,
  rowWriter,
} from './statements.js';

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
 * What the account's last committed write of a table through this file wrote, while nothing has
 * written the table for the account since: the list a poll gives is usually the same as the last
 * one, and then every column but last_seen_at is already as stored. `writes` counts this file's
 * writes of the table for the account (rolled back ones included), `version` is data_version
 * (another connection's commit moves it). `live` says the sync was whole: the account's live
 * rows are exactly `items` (markGone ran, nothing unreadable).
 */
interface Written {
  items: readonly object[];
  writes: number;
  version: number;
  live: boolean;
}

const memory = perDatabase(() => ({
  writes: new Map<SQLiteTable, Map<string, number>>(),
  written: new Map<SQLiteTable, Map<string, Written>>(),
}));

function writesOf(database: Database, table: SQLiteTable, account: string): number {
  return memory(database).writes.get(table)?.get(account) ?? 0;
}

/** Called before every write of a table here: what was kept of the account's last write no longer holds. */
function writing(database: Database, table: SQLiteTable, account: string): void {
  const { writes } = memory(database);
  let counts = writes.get(table);
  if (counts === undefined) {
    counts = new Map();
    writes.set(table, counts);
  }
  counts.set(account, (counts.get(account) ?? 0) + 1);
}

/** Keeps what the write under way wrote, once (and only if) it is committed. */
function keepWritten(database: Database, table: SQLiteTable, account: string, items: readonly object[], live: boolean) {
  const kept: Written = { items, writes: writesOf(database, table, account), version: dataVersion(database), live };
  database.afterCommit(() => {
    const { written } = memory(database);
    let accounts = written.get(table);
    if (accounts === undefined) {
      accounts = new Map();
      written.set(table, accounts);
    }
    accounts.set(account, kept);
  });
}

/** The account's last committed write of the table if it still holds and wrote `items`, column for column. */
function sameAsWritten(database: Database, table: SQLiteTable, account: string, items: readonly object[]) {
  const kept = memory(database).written.get(table)?.get(account);
  if (kept === undefined || kept.writes !== writesOf(database, table, account)) return undefined;
  if (kept.items.length !== items.length || kept.version !== dataVersion(database)) return undefined;
  for (let i = 0; i < items.length; i++) {
    if (!sameItem(kept.items[i] as Record<string, unknown>, items[i] as Record<string, unknown>)) return undefined;
  }
  return kept;
}

/** Equal column values: JSON columns (objects, arrays) by their text, as the writer encodes them. */
function sameItem(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  if (a === b) return true;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    const x = a[key];
    const y = b[key];
    if (x === y) continue;
    if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object') return false;
    if (JSON.stringify(x) !== JSON.stringify(y)) return false;
  }
  return true;
}

/**
 * Upsert of "latest state" rows keyed (account, idKey): an item keeps its first_seen_at,
 * everything else is replaced, and last_seen_at moves to `now`. A list equal to the account's
 * last one written (the usual poll) only moves last_seen_at.
 */
export function latestUpsert<T extends LatestTable>(table: T, idKey: keyof LatestInput<T> & string) {
  const upsertRows = rowsUpsert(table, idKey);
  const id = columnOf(table, idKey).name;
  const touch = perDatabase((database) =>
    database.sqlite.prepare<[number, string, unknown]>(
      `UPDATE "${getTableName(table)}" SET "${table.lastSeenAt.name}" = ? WHERE "${table.account.name}" = ? AND "${id}" = ?`,
    ),
  );
  return (database: Database, account: string, items: readonly LatestInput<T>[], now: number): number => {
    database.transaction(() => {
      if (sameAsWritten(database, table, account, items) !== undefined) {
        const statement = touch(database);
        for (const item of items) statement.run(now, account, item[idKey]);
        return;
      }
      writing(database, table, account);
      upsertRows(database, account, items, now);
      keepWritten(database, table, account, items, false);
    });
    return items.length;
  };
}

/** The upsert of latestUpsert, without what it keeps; run inside the caller's transaction. */
function rowsUpsert<T extends LatestTable>(table: T, idKey: keyof LatestInput<T> & string) {
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
  const upsertRows = rowsUpsert(table, idKey);
  const id = columnOf(table, idKey).name;
  // Prepared once per database: every inventory poll runs it.
  const statements = perDatabase((database) => ({
    markGone: database.sqlite.prepare<[number, string, string], { id: string }>(
      `UPDATE "${getTableName(table)}" SET "${table.goneAt.name}" = ?
       WHERE "${table.account.name}" = ? AND "${table.goneAt.name}" IS NULL
         AND "${id}" NOT IN (SELECT value FROM json_each(?))
       RETURNING "${id}" AS id`,
    ),
    seen: database.sqlite.prepare<[number, string]>(
      `UPDATE "${getTableName(table)}" SET "${table.lastSeenAt.name}" = ?
       WHERE "${table.account.name}" = ? AND "${table.goneAt.name}" IS NULL`,
    ),
  }));
  return (
    database: Database,
    account: string,
    items: readonly LatestInput<T>[],
    now: number,
    unreadable: UnreadableItems = { ids: [], anonymous: false },
  ): SyncResult => {
    const whole = !unreadable.anonymous && unreadable.ids.length === 0;
    inventoryChanged(database, table);
    return database.transaction(() => {
      if (whole && sameAsWritten(database, table, account, items)?.live === true) {
        // The live rows are the list as stored, and no other: upserting it and marking the
        // missing gone would only move their last_seen_at.
        statements(database).seen.run(now, account);
        inventoryChanged(database, table);
        return { upserted: items.length, gone: [] };
      }
      writing(database, table, account);
      const upserted = upsertRows(database, account, items, now);
      // An item we could not read without its id could be any of them: none is gone for sure.
      if (unreadable.anonymous) return { upserted, gone: [] };
      const seen = JSON.stringify([...items.map((item) => item[idKey]), ...unreadable.ids]);
      const gone = statements(database)
        .markGone.all(now, account, seen)
        .map((row) => row.id);
      inventoryChanged(database, table);
      keepWritten(database, table, account, items, whole);
      return { upserted, gone };
    });
  };
}
