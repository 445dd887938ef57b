import { type DriverValueEncoder, getTableColumns, is, Param, Placeholder, type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { DatabaseError } from './errors.js';
import type { Database } from './open.js';

/**
 * Builds something (prepared statements) once per open database and reuses it: collectors write
 * thousands of rows per cycle, and preparing a statement costs more than running it.
 */
export function perDatabase<T>(build: (database: Database) => T): (database: Database) => T {
  const cache = new WeakMap<Database, T>();
  return (database) => {
    let built = cache.get(database);
    if (built === undefined) {
      built = build(database);
      cache.set(database, built);
    }
    return built;
  };
}

type InsertKey<T extends SQLiteTable> = keyof T['$inferInsert'] & string;
export type PlaceholderRow<T extends SQLiteTable> = { [K in InsertKey<T>]-?: Placeholder<K> };

/** `{ column: sql.placeholder('column') }` for every column, so one prepared insert serves every row. */
export function placeholdersFor<T extends SQLiteTable>(table: T): PlaceholderRow<T> {
  const row: Record<string, Placeholder> = {};
  for (const key of Object.keys(getTableColumns(table))) row[key] = sql.placeholder(key);
  return row as PlaceholderRow<T>;
}

/**
 * The conflict clause of an upsert on `target` that replaces every other column with the value
 * of the row being inserted (SQLite's `excluded`), except the columns named in `keep`.
 */
export function replaceOnConflict<T extends SQLiteTable>(
  table: T,
  target: SQLiteColumn[],
  keep: ReadonlyArray<InsertKey<T>> = [],
): { target: SQLiteColumn[]; set: Partial<Record<InsertKey<T>, SQL>> } {
  const set: Partial<Record<string, SQL>> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    if (target.includes(column) || keep.includes(key as InsertKey<T>)) continue;
    set[key] = sql.raw(`excluded."${column.name}"`);
  }
  return { target, set: set as Partial<Record<InsertKey<T>, SQL>> };
}

type Getter = (row: Record<string, unknown>) => unknown;

/**
 * Compiles a drizzle statement written with placeholders into a plain better-sqlite3 statement
 * and a list of per-column getters, so a bulk write binds each row without drizzle resolving
 * every placeholder again (a large share of the cost of a row). Returns the row's changes.
 */
export function rowWriter<Row extends object>(
  database: Database,
  query: { toSQL(): { sql: string; params: unknown[] } },
): (row: Row) => number {
  const { sql: text, params } = query.toSQL();
  const getters = params.map((param, index): Getter => {
    const placeholder = is(param, Param) ? param.value : param;
    // A literal in the statement comes out of toSQL() already in its driver form.
    if (!is(placeholder, Placeholder)) return () => param;
    const name = placeholder.name;
    const encoder = is(param, Param) ? (param.encoder as DriverValueEncoder<unknown, unknown> | undefined) : undefined;
    return (row) => {
      const value = row[name];
      if (value === undefined) {
        throw new DatabaseError(`bind parameter ${index + 1} of ${text.slice(0, 60)}…`, `the row has no ${name}`);
      }
      // NULL stays SQL NULL (drizzle would store a JSON column's null as the text 'null').
      return encoder && value !== null ? encoder.mapToDriverValue(value) : value;
    };
  });
  const statement = database.sqlite.prepare(text);
  return (row) => {
    const values = new Array(getters.length);
    for (let i = 0; i < getters.length; i++) values[i] = (getters[i] as Getter)(row as Record<string, unknown>);
    return statement.run(values).changes;
  };
}

const inventoryReads: Array<{ tables: readonly SQLiteTable[] | undefined; invalidate(database: Database): void }> = [];

/**
 * A cachedRead of the inventory tables (Pods, endpoints, network volumes, clusters), which only
 * latest.ts writes: it drops such reads when it writes. A read that names its `tables` is dropped
 * only when one of those is written (the Pod poll writes every minute; endpoints and volumes
 * change every five); one that names none, on every inventory write.
 */
export function inventoryRead<K, T>(read: (database: Database, key: K) => T, tables?: readonly SQLiteTable[]) {
  const cached = cachedRead(read);
  inventoryReads.push({ tables, invalidate: (database) => cached.invalidate(database) });
  return cached;
}

/** Called by latest.ts on every write to an inventory table. */
export function inventoryChanged(database: Database, table: SQLiteTable): void {
  for (const cached of inventoryReads) {
    if (cached.tables === undefined || cached.tables.includes(table)) cached.invalidate(database);
  }
}

const versions = perDatabase(({ sqlite }) => ({
  read: sqlite.prepare('PRAGMA data_version').pluck(),
  /** The version read at the start of the synchronous stretch under way (oneDataVersion), if any. */
  pinned: undefined as number | undefined,
  reads: 0,
}));

/**
 * SQLite's data_version of this connection: it moves when another connection commits (never for
 * this connection's own writes, which the query files' writers answer by invalidating). Inside
 * oneDataVersion, the value read when that stretch began.
 */
export function dataVersion(database: Database): number {
  const version = versions(database);
  if (version.pinned !== undefined) return version.pinned;
  version.reads += 1;
  return version.read.get() as number;
}

/**
 * Runs `fn` with data_version read once, at its start, instead of by every cached read it makes:
 * a waste or idle tick makes dozens of them, and the PRAGMA was the largest fixed cost of the
 * waste rule. Exact for a synchronous stretch that only reads: another connection of this process
 * cannot commit in the middle of it, and one of another process that does is as if it had
 * committed just after the stretch (a read that misses still reads the database as it is, and
 * keeps what it read only under the older version, so the next stretch drops it). An async `fn`
 * is pinned only up to its first await; the pin ends when `fn` returns.
 */
export function oneDataVersion<T>(database: Database, fn: () => T): T {
  const version = versions(database);
  if (version.pinned !== undefined) return fn();
  version.reads += 1;
  version.pinned = version.read.get() as number;
  try {
    return fn();
  } finally {
    version.pinned = undefined;
  }
}

/** How many times data_version was read on this database, for tests that check a tick reads it once. */
export function dataVersionReads(database: Database): number {
  return versions(database).reads;
}

/**
 * A read kept in memory per database and key until its tables change: the query file's
 * writers call `invalidate`, and a commit by another connection (the CLI) moves SQLite's
 * data_version. Inside an open transaction it reads without keeping anything, because that
 * transaction may still roll back. Callers must not modify what they get.
 */
export function cachedRead<K, T>(read: (database: Database, key: K) => T) {
  const caches = perDatabase(() => ({ seen: Number.NaN, values: new Map<K, T>() }));
  return {
    get(database: Database, key: K): T {
      if (database.sqlite.inTransaction) return read(database, key);
      const cache = caches(database);
      const version = dataVersion(database);
      if (version !== cache.seen) {
        cache.seen = version;
        cache.values.clear();
      }
      let value = cache.values.get(key);
      if (value === undefined) {
        value = read(database, key);
        cache.values.set(key, value);
      }
      return value;
    },
    /**
     * The value kept for `key` while it is still what a read would return, else undefined: reads
     * only data_version and keeps nothing, so a writer may compare with it inside its transaction
     * (where `get` reads afresh) before it writes and invalidates.
     */
    peek(database: Database, key: K): T | undefined {
      const cache = caches(database);
      return dataVersion(database) === cache.seen ? cache.values.get(key) : undefined;
    },
    invalidate(database: Database): void {
      caches(database).values.clear();
    },
    /**
     * Keeps `value` as what a read of `key` returns, for a writer that knows it from what it has
     * just committed, instead of the next reader reading it again. `version` is the data_version
     * the writer read before what it built on: if another connection has committed since, the
     * next get drops it. Inside a transaction (which may still roll back) it keeps nothing.
     */
    remember(database: Database, key: K, value: T, version: number): void {
      const cache = caches(database);
      cache.values.clear();
      if (database.sqlite.inTransaction) return;
      cache.seen = version;
      cache.values.set(key, value);
    },
  };
}
