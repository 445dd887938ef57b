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
