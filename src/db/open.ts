import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { type Logger, silentLogger } from '../log.js';
import { packagePath, version } from '../package-root.js';
import { DatabaseError } from './errors.js';
import { assertNotNewer, pendingMigrations, readAppliedState, readJournal, recordMeta } from './migrations.js';
import * as schema from './schema.js';

export type Db = BetterSQLite3Database<typeof schema>;

export interface Database {
  sqlite: BetterSqlite3.Database;
  db: Db;
  /** Runs `fn` in one transaction (a savepoint when nested); `fn` must not await. */
  transaction<T>(fn: () => T): T;
  /** Tags of the migrations this open applied, oldest first. */
  applied: readonly string[];
  /** How many migrations the database has now. */
  schemaVersion: number;
  close(): void;
}

export interface OpenOptions {
  log?: Logger;
  /** Apply pending migrations (default true). The newer-database check runs either way. */
  migrate?: boolean;
  /** Where the migrations are; defaults to the package's own migrations/, whatever the cwd. */
  migrationsFolder?: string;
}

const MEMORY = ':memory:';

/**
 * Opens (creating if needed) the podwarden database: private file, WAL, pragmas, migrations.
 * Throws DatabaseTooNewError for a database migrated by a newer podwarden.
 */
export function openDatabase(path: string, options: OpenOptions = {}): Database {
  const log = options.log ?? silentLogger();
  const migrationsFolder = options.migrationsFolder ?? packagePath('migrations');
  const known = readJournal(migrationsFolder);
  if (path !== MEMORY) createPrivateFile(path);
  const sqlite = connect(path);
  try {
    configure(sqlite, path, log);
    const before = readAppliedState(sqlite);
    assertNotNewer(path, before, known);
    const db = drizzle(sqlite, { schema });
    let applied: string[] = [];
    if (options.migrate ?? true) {
      applied = pendingMigrations(before, known).map((entry) => entry.tag);
      // Nothing pending: skip drizzle's write transaction, so opening never waits on a writer.
      if (applied.length > 0) migrate(db, { migrationsFolder });
      for (const tag of applied) log.info({ migration: tag, database: path }, 'applied database migration');
      if (applied.length > 0 || (before.metaSchemaVersion ?? 0) < known.length) {
        recordMeta(sqlite, known.length, version);
      }
    }
    const schemaVersion = readAppliedState(sqlite).count;
    log.debug({ database: path, schemaVersion }, 'opened database');
    return {
      sqlite,
      db,
      transaction: (fn) => sqlite.transaction(fn)(),
      applied,
      schemaVersion,
      close: () => sqlite.close(),
    };
  } catch (error) {
    sqlite.close();
    if (error instanceof DatabaseError) throw error;
    throw new DatabaseError(`open database ${path}`, (error as Error).message, { cause: error });
  }
}

/** The file is created 0600 before SQLite touches it; SQLite gives its -wal and -shm the same mode. */
function createPrivateFile(path: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    closeSync(openSync(path, 'a', 0o600));
  } catch (error) {
    throw new DatabaseError(`create database ${path}`, (error as Error).message, { cause: error });
  }
}

function connect(path: string): BetterSqlite3.Database {
  try {
    return new BetterSqlite3(path);
  } catch (error) {
    throw new DatabaseError(`open database ${path}`, (error as Error).message, { cause: error });
  }
}

function configure(sqlite: BetterSqlite3.Database, path: string, log: Logger): void {
  const mode = sqlite.pragma('journal_mode = WAL', { simple: true });
  if (path !== MEMORY && mode !== 'wal') {
    log.warn({ database: path, journalMode: mode }, 'database does not support WAL; concurrent readers may block');
  }
  // Writers from the CLI and the daemon may meet; wait for the lock instead of failing at once.
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // Durable at every checkpoint; a power cut may lose the last transactions, never corrupt.
  sqlite.pragma('synchronous = NORMAL');
}
