import type BetterSqlite3 from 'better-sqlite3';

/** The bytes one table takes in the file: its own b-tree and every index on it. */
export interface TableSize {
  table: string;
  rows: number;
  /** Pages of the table's own b-tree (for a WITHOUT ROWID table, its primary key). */
  tableBytes: number;
  /** Pages of its indexes, the automatic ones of PRIMARY KEY and UNIQUE included. */
  indexBytes: number;
  indexes: string[];
}

export interface FileSize {
  tables: TableSize[];
  /** SQLite's own pages: the schema table, the freelist (not in dbstat), the WAL is excluded. */
  otherBytes: number;
  /** page_count × page_size: what the tables, their indexes and the rest add up to. */
  fileBytes: number;
}

/**
 * Where every page of the main database file goes, per table, its indexes counted with it.
 * Reads the dbstat virtual table (every b-tree page, overflow pages included) and maps each
 * index to its table through sqlite_schema, so a primary key's automatic index (which a table
 * with a rowid keeps beside its rows) is counted against the table it doubles.
 */
export function measureFile(sqlite: BetterSqlite3.Database): FileSize {
  const pages = new Map(
    (
      sqlite.prepare(`SELECT name, SUM(pgsize) AS bytes FROM dbstat WHERE aggregate = 0 GROUP BY name`).all() as Array<{
        name: string;
        bytes: number;
      }>
    ).map((row) => [row.name, row.bytes]),
  );
  const objects = sqlite
    .prepare(`SELECT type, name, tbl_name AS tableName FROM sqlite_schema WHERE type IN ('table', 'index')`)
    .all() as Array<{ type: 'table' | 'index'; name: string; tableName: string }>;
  const tables: TableSize[] = [];
  let counted = 0;
  for (const object of objects) {
    if (object.type !== 'table' || object.name.startsWith('sqlite_')) continue;
    const indexes = objects.filter((o) => o.type === 'index' && o.tableName === object.name).map((o) => o.name);
    const size: TableSize = {
      table: object.name,
      rows: (sqlite.prepare(`SELECT count(*) FROM "${object.name}"`).pluck().get() as number) ?? 0,
      tableBytes: pages.get(object.name) ?? 0,
      indexBytes: indexes.reduce((sum, name) => sum + (pages.get(name) ?? 0), 0),
      indexes,
    };
    counted += size.tableBytes + size.indexBytes;
    tables.push(size);
  }
  const pageSize = sqlite.pragma('page_size', { simple: true }) as number;
  const fileBytes = (sqlite.pragma('page_count', { simple: true }) as number) * pageSize;
  tables.sort((a, b) => b.tableBytes + b.indexBytes - (a.tableBytes + a.indexBytes));
  return { tables, otherBytes: fileBytes - counted, fileBytes };
}

/** Rows of `table` whose `column` lies in [from, to): how fast a table grows over a known span. */
export function rowsBetween(sqlite: BetterSqlite3.Database, table: string, column: string, from: number, to: number) {
  return sqlite
    .prepare(`SELECT count(*) FROM "${table}" WHERE "${column}" >= ? AND "${column}" < ?`)
    .pluck()
    .get(from, to) as number;
}

/** The smallest and largest value of a table's time column (null for an empty table). */
export function timeSpan(sqlite: BetterSqlite3.Database, table: string, column: string) {
  return sqlite.prepare(`SELECT min("${column}") AS first, max("${column}") AS last FROM "${table}"`).get() as {
    first: number | null;
    last: number | null;
  };
}
