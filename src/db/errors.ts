import { shellQuote } from '../format.js';

/** A database operation failed; the message reads `op: detail`. */
export class DatabaseError extends Error {
  constructor(
    readonly op: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`${op}: ${detail}`, options);
    this.name = 'DatabaseError';
  }
}

/**
 * The database was migrated by a newer podwarden: opening it with this one could corrupt what
 * the newer schema expects, so we refuse instead.
 */
export class DatabaseTooNewError extends DatabaseError {
  constructor(
    readonly path: string,
    readonly databaseSchemaVersion: number,
    readonly knownSchemaVersion: number,
    readonly migratedBy: string | null,
  ) {
    const by = migratedBy ? ` by podwarden ${migratedBy}` : '';
    super(
      `open database ${path}`,
      `it was migrated${by} to schema version ${databaseSchemaVersion}, with migrations this podwarden ` +
        `does not know (it knows schema version ${knownSchemaVersion}); upgrade podwarden, or point ` +
        'database.path at another file',
    );
    this.name = 'DatabaseTooNewError';
  }
}

/** SQLite's codes for "this database cannot be written" (disk full, I/O error, read-only file or mount). */
const WRITE_FAILURE = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|PERM)/;

/**
 * When `error` (or an error it wraps) is SQLite refusing a write, its message and code, e.g.
 * "database or disk is full (SQLITE_FULL)"; otherwise undefined. Such a failure is the
 * database's, not RunPod's or a rule's: readiness and the metrics report it as such.
 */
export function databaseWriteFailure(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && WRITE_FAILURE.test(code)) return `${e.message} (${code})`;
  }
  return undefined;
}

/**
 * The database file is damaged (a failed quick_check or integrity_check, or SQLite found a bad
 * page while opening it). podwarden refuses to run on it: writing on would spread the damage and
 * a rule could act on half-read data. The message says what to do.
 */
export class DatabaseCorruptError extends DatabaseError {
  constructor(
    readonly path: string,
    readonly problems: string[],
  ) {
    const recovered = `${path}.recovered`;
    super(
      `open database ${path}`,
      `the file is damaged (${problems.slice(0, 3).join('; ')}${problems.length > 3 ? '; …' : ''}). podwarden will not ` +
        'run on it. Stop podwarden and keep a copy of the file; then restore it from a backup, or recover what ' +
        `SQLite can still read with: sqlite3 ${shellQuote(path)} .recover | sqlite3 ${shellQuote(recovered)} ` +
        'and point database.path at the recovered file (or move the file away to start afresh: billing is ' +
        'backfilled again). `podwarden db check` lists every problem.',
    );
    this.name = 'DatabaseCorruptError';
  }
}

/**
 * The database exists but this process may not write it (a read-only file, directory or mount).
 * Not a failure to create it: the commands that only read (`why`, `silence list`, `db check`)
 * work on it as it is.
 */
export class DatabaseReadOnlyError extends DatabaseError {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(
      `open database ${path}`,
      `${reason}; this command writes to the database. Give podwarden write access to the file and its ` +
        'directory (SQLite keeps its -wal and -shm files beside it); `podwarden why` and `podwarden silence list` ' +
        'read a read-only database as it is.',
    );
    this.name = 'DatabaseReadOnlyError';
  }
}
