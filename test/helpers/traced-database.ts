import BetterSqlite3 from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { type Database, transactionsOf } from '../../src/db/open.js';
import * as schema from '../../src/db/schema.js';

/**
 * A connection to an existing database file that records every statement it runs (better-sqlite3's
 * `verbose` hook sees each execution, prepared or not), for tests that count what a read costs.
 */
export function tracedDatabase(path: string, statements: string[]): Database {
  const sqlite = new BetterSqlite3(path, { verbose: (sql) => statements.push(String(sql)) });
  return {
    sqlite,
    db: drizzle(sqlite, { schema }),
    ...transactionsOf(sqlite),
    applied: [],
    schemaVersion: 0,
    close: () => sqlite.close(),
  };
}
