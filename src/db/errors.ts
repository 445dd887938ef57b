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
