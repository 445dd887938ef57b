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
