import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { type Database, type OpenOptions, openDatabase } from '../../src/db/open.js';

/**
 * Real SQLite files in a fresh temporary folder per test; every database opened through
 * `open` is closed and the folder removed after the test.
 */
export function useTempDatabases(): { dir(): string; open(name?: string, options?: OpenOptions): Database } {
  let dir: string | undefined;
  const opened: Database[] = [];
  afterEach(() => {
    for (const database of opened.splice(0)) {
      if (database.sqlite.open) database.close();
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const folder = () => {
    dir ??= mkdtempSync(join(tmpdir(), 'podwarden-db-'));
    return dir;
  };
  return {
    dir: folder,
    open(name = 'podwarden.db', options = {}) {
      const database = openDatabase(join(folder(), name), options);
      opened.push(database);
      return database;
    },
  };
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** 2026-11-02T00:00:00Z, the small-team scenario's start. */
export const T0 = Date.UTC(2026, 10, 2);
