import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { DatabaseError, DatabaseTooNewError } from './errors.js';

/** drizzle's bookkeeping table: one row per applied migration, `created_at` = the journal's `when`. */
const DRIZZLE_MIGRATIONS = '__drizzle_migrations';

export interface MigrationEntry {
  tag: string;
  when: number;
}

/** The migrations this podwarden ships, in order, from drizzle-kit's journal. */
export function readJournal(folder: string): MigrationEntry[] {
  const path = join(folder, 'meta', '_journal.json');
  let journal: { entries?: Array<{ tag?: unknown; when?: unknown }> };
  try {
    journal = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new DatabaseError('read migrations', `${path}: ${(error as Error).message}`, { cause: error });
  }
  return (journal.entries ?? []).map((entry, index) => {
    if (typeof entry.tag !== 'string' || typeof entry.when !== 'number') {
      throw new DatabaseError('read migrations', `${path}: entries[${index}] lacks a tag or a when`);
    }
    return { tag: entry.tag, when: entry.when };
  });
}

interface AppliedState {
  count: number;
  lastWhen: number | null;
  metaSchemaVersion: number | null;
  metaPodwardenVersion: string | null;
}

function tableExists(sqlite: BetterSqlite3.Database, name: string): boolean {
  return sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

export function readAppliedState(sqlite: BetterSqlite3.Database): AppliedState {
  const state: AppliedState = { count: 0, lastWhen: null, metaSchemaVersion: null, metaPodwardenVersion: null };
  if (tableExists(sqlite, DRIZZLE_MIGRATIONS)) {
    const row = sqlite
      .prepare(`SELECT count(*) AS count, max(created_at) AS lastWhen FROM "${DRIZZLE_MIGRATIONS}"`)
      .get() as { count: number; lastWhen: number | null };
    state.count = row.count;
    state.lastWhen = row.lastWhen === null ? null : Number(row.lastWhen);
  }
  if (tableExists(sqlite, 'podwarden_meta')) {
    const meta = sqlite.prepare('SELECT schema_version, podwarden_version FROM podwarden_meta WHERE id = 1').get() as
      | { schema_version: number; podwarden_version: string }
      | undefined;
    state.metaSchemaVersion = meta?.schema_version ?? null;
    state.metaPodwardenVersion = meta?.podwarden_version ?? null;
  }
  return state;
}

/** Refuses a database that has migrations this podwarden does not know. */
export function assertNotNewer(path: string, state: AppliedState, known: MigrationEntry[]): void {
  const lastKnown = known.at(-1)?.when ?? 0;
  const databaseVersion = Math.max(state.count, state.metaSchemaVersion ?? 0);
  const hasUnknownMigration = state.lastWhen !== null && state.lastWhen > lastKnown;
  if (databaseVersion > known.length || hasUnknownMigration) {
    throw new DatabaseTooNewError(path, databaseVersion, known.length, state.metaPodwardenVersion);
  }
}

/** The journal entries drizzle's migrator will apply, by its own rule (newer than the last applied). */
export function pendingMigrations(state: AppliedState, known: MigrationEntry[]): MigrationEntry[] {
  return known.filter((entry) => state.lastWhen === null || entry.when > state.lastWhen);
}

export function recordMeta(sqlite: BetterSqlite3.Database, schemaVersion: number, podwardenVersion: string): void {
  sqlite
    .prepare(
      `INSERT INTO podwarden_meta (id, schema_version, podwarden_version) VALUES (1, ?, ?)
       ON CONFLICT (id) DO UPDATE SET schema_version = excluded.schema_version, podwarden_version = excluded.podwarden_version`,
    )
    .run(schemaVersion, podwardenVersion);
}
