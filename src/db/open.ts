import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { type Logger, silentLogger } from '../log.js';
import { packagePath, version } from '../package-root.js';
import { DatabaseCorruptError, DatabaseError, DatabaseReadOnlyError } from './errors.js';
import { assertIntact, isCorruption } from './integrity.js';
import { assertNotNewer, pendingMigrations, readAppliedState, readJournal, recordMeta } from './migrations.js';
import * as schema from './schema.js';
import { cachingClient } from './statement-cache.js';

export type Db = BetterSQLite3Database<typeof schema>;

export interface Database {
  sqlite: BetterSqlite3.Database;
  db: Db;
  /**
   * Runs `fn` in one transaction (a savepoint when nested), for store functions in src/db:
   * better-sqlite3 runs it synchronously, so a body returning a promise is a type error.
   */
  transaction<T>(fn: () => T extends PromiseLike<unknown> ? never : T): T;
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
  /**
   * Only read: the file must exist; nothing is created, migrated or written (not even the switch
   * to WAL), so it works on a read-only file, directory or mount. The schema must be current.
   */
  readonly?: boolean;
  /** PRAGMA quick_check at open, refusing a damaged file (default true; `db check` runs the full one). */
  check?: boolean;
}

const MEMORY = ':memory:';

// better-sqlite3 reads this once, when it opens its first database: with URIs on, a read-only
// open can ask for `immutable` (see openReadOnly). Only names starting with "file:" are URIs.
process.env.SQLITE_USE_URI ??= '1';

/**
 * Opens (creating if needed) the podwarden database: private file, WAL, pragmas, a quick check,
 * migrations. Throws DatabaseTooNewError for a database migrated by a newer podwarden,
 * DatabaseCorruptError for a damaged one and DatabaseReadOnlyError for one it may not write.
 */
export function openDatabase(path: string, options: OpenOptions = {}): Database {
  const log = options.log ?? silentLogger();
  const migrationsFolder = options.migrationsFolder ?? packagePath('migrations');
  const known = readJournal(migrationsFolder);
  if (options.readonly) return openReadOnly(path, known, options.check ?? true);
  if (path !== MEMORY) prepareFile(path);
  const sqlite = connect(path);
  try {
    configure(sqlite, path, log);
    if ((options.check ?? true) && path !== MEMORY) assertIntact(sqlite, path);
    const before = readAppliedState(sqlite);
    assertNotNewer(path, before, known);
    const database = connection(sqlite, before.count);
    let applied: string[] = [];
    if (options.migrate ?? true) {
      applied = pendingMigrations(before, known).map((entry) => entry.tag);
      // Nothing pending: skip drizzle's write transaction, so opening never waits on a writer.
      if (applied.length > 0) migrate(database.db, { migrationsFolder });
      for (const tag of applied) log.info({ migration: tag, database: path }, 'applied database migration');
      if (applied.length > 0 || (before.metaSchemaVersion ?? 0) < known.length) {
        recordMeta(sqlite, known.length, version);
      }
    }
    const schemaVersion = readAppliedState(sqlite).count;
    log.debug({ database: path, schemaVersion }, 'opened database');
    return { ...database, applied, schemaVersion };
  } catch (error) {
    sqlite.close();
    throw openError(path, error);
  }
}

/** What went wrong at open, in the terms the reader needs: damaged, read-only, or SQLite's own words. */
function openError(path: string, error: unknown): DatabaseError {
  if (error instanceof DatabaseError) return error;
  if (isCorruption(error)) return new DatabaseCorruptError(path, [(error as Error).message]);
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('SQLITE_READONLY')) {
    return new DatabaseReadOnlyError(path, `SQLite may not write it (${(error as Error).message})`);
  }
  return new DatabaseError(`open database ${path}`, (error as Error).message, { cause: error });
}

/**
 * A new file is created 0600 before SQLite touches it; SQLite gives its -wal and -shm the same
 * mode. An existing one is checked for write access, so a read-only file or mount is reported
 * as such, not as a failure to create it.
 */
function prepareFile(path: string): void {
  if (existsSync(path)) {
    for (const [what, target] of [
      ['the file', path],
      ['its directory', dirname(path)],
    ] as const) {
      try {
        accessSync(target, constants.W_OK);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        throw new DatabaseReadOnlyError(path, `${what} is read-only for podwarden (${code})`);
      }
    }
    return;
  }
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    closeSync(openSync(path, 'a', 0o600));
  } catch (error) {
    throw new DatabaseError(`create database ${path}`, (error as Error).message, { cause: error });
  }
}

/** `target` is the path, or for an immutable read a `file:` URI; messages name `path`. */
function connect(path: string, readonly = false, target = path): BetterSqlite3.Database {
  try {
    return new BetterSqlite3(target, readonly ? { readonly: true, fileMustExist: true } : {});
  } catch (error) {
    throw openError(path, error);
  }
}

/**
 * A read-only open. A WAL database needs its -shm index, which SQLite cannot create in a read-only
 * directory once the daemon has closed cleanly (it removes -wal and -shm): then the file is read
 * as immutable, which is right for a read-only mount (no writer can be there) and, for a
 * read-only directory, shows what the last writer checkpointed.
 */
function openReadOnly(path: string, known: ReturnType<typeof readJournal>, check: boolean): Database {
  if (!existsSync(path)) {
    throw new DatabaseError(
      `open database ${path}`,
      'no such file (podwarden run or podwarden migrate creates it; is database.path right?)',
    );
  }
  let sqlite = connect(path, true);
  try {
    try {
      readAppliedState(sqlite);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_CANTOPEN') throw error;
      sqlite.close();
      sqlite = connect(path, true, `file:${encodeURI(path).replace(/[?#]/g, encodeURIComponent)}?immutable=1`);
    }
    // Beside a running daemon a reader may meet its checkpoint: wait, as a writer would.
    sqlite.pragma('busy_timeout = 5000');
    if (check) assertIntact(sqlite, path);
    const state = readAppliedState(sqlite);
    assertNotNewer(path, state, known);
    const pending = pendingMigrations(state, known).length;
    if (pending > 0) {
      throw new DatabaseError(
        `open database ${path}`,
        `it is at schema version ${state.count} and this podwarden expects ${known.length}; opened read-only, it ` +
          'cannot be migrated: run podwarden migrate with write access first',
      );
    }
    return connection(sqlite, state.count);
  } catch (error) {
    sqlite.close();
    throw openError(path, error);
  }
}

/** The store's handle on an open connection, with nothing applied by this open. */
function connection(sqlite: BetterSqlite3.Database, schemaVersion: number): Database {
  const db = drizzle({ client: cachingClient(sqlite) as BetterSqlite3.Database, schema });
  return { sqlite, db, ...transactionsOf(sqlite), applied: [], schemaVersion, close: () => sqlite.close() };
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
  // A checkpoint (two fsyncs) every 4,000 pages of WAL, not SQLite's 1,000: a 30-day backfill
  // spent about a second waiting on them; 4,000 frames still fit one WAL-index segment.
  sqlite.pragma('wal_autocheckpoint = 4000');
}

/**
 * One better-sqlite3 transaction function for the connection, handed each body to run: making a
 * new one per call builds four wrappers and their properties every time. Nesting still becomes a
 * savepoint, as the wrapper checks for an open transaction when called, not when made.
 */
export function transactionsOf(sqlite: BetterSqlite3.Database): Pick<Database, 'transaction'> {
  const run = sqlite.transaction((fn: () => unknown) => fn());
  return { transaction: <T>(fn: () => T): T => run(fn) as T };
}
