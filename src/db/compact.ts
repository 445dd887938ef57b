import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { formatBytes } from '../format.js';
import { DatabaseError } from './errors.js';
import type { Database } from './open.js';

/** What compacting did to the file: its size before and after, and how much was free inside it. */
export interface CompactResult {
  beforeBytes: number;
  afterBytes: number;
  /** Bytes of free pages before: what deleting rows (retention, a migration) left unused. */
  freeBytesBefore: number;
  /** False when there was nothing to return (no free pages): the file was left as it was. */
  compacted: boolean;
}

/**
 * Another process has the database open (a running daemon, most likely). Compacting rewrites the
 * whole file under an exclusive lock, which would hold every write of that process for minutes.
 */
export class DatabaseInUseError extends DatabaseError {
  constructor(readonly path: string) {
    super(
      `compact database ${path}`,
      'another process has it open (a running podwarden?). Stop it, then run this again: compacting rewrites ' +
        'the whole file and would hold that process’s writes until it is done',
    );
    this.name = 'DatabaseInUseError';
  }
}

/** Not enough free disk beside the database for the rewritten copy SQLite writes before it swaps. */
export class CompactDiskSpaceError extends DatabaseError {
  constructor(path: string, neededBytes: number, freeBytes: number) {
    super(
      `compact database ${path}`,
      `it needs about ${formatBytes(neededBytes)} free beside the file for the rewritten copy, and ${formatBytes(freeBytes)} ` +
        'is free; free some space, or copy the file to a larger disk, compact it there and copy it back',
    );
    this.name = 'CompactDiskSpaceError';
  }
}

function pages(database: Database): { size: number; count: number; free: number } {
  const pragma = (name: string) => database.sqlite.pragma(name, { simple: true }) as number;
  return { size: pragma('page_size'), count: pragma('page_count'), free: pragma('freelist_count') };
}

/**
 * Returns the free pages of the database to the file system (SQLite's VACUUM), for after a
 * retention change or a migration that deleted much (0011 leaves a 14-day sample table's worth).
 * Takes the database for this connection alone first and refuses while any other process has it
 * open; keeps the lock until the connection closes, so a daemon started meanwhile waits or fails
 * at open rather than writing into a file being rewritten. Nothing is deleted: VACUUM only copies.
 */
export async function compactDatabase(database: Database, path: string): Promise<CompactResult> {
  const { sqlite } = database;
  sqlite.pragma('busy_timeout = 0');
  sqlite.pragma('locking_mode = EXCLUSIVE');
  try {
    sqlite.exec('BEGIN EXCLUSIVE; COMMIT');
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) throw new DatabaseInUseError(path);
    throw error;
  }
  const before = pages(database);
  const beforeBytes = before.count * before.size;
  const freeBytesBefore = before.free * before.size;
  if (before.free === 0) return { beforeBytes, afterBytes: beforeBytes, freeBytesBefore, compacted: false };
  // The rewritten content passes through the WAL beside the file before it is copied back.
  const neededBytes = beforeBytes - freeBytesBefore;
  const disk = statfsSync(dirname(path));
  const freeOnDisk = disk.bavail * disk.bsize;
  if (freeOnDisk < neededBytes) throw new CompactDiskSpaceError(path, neededBytes, freeOnDisk);
  sqlite.exec('VACUUM');
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  const after = pages(database);
  return { beforeBytes, afterBytes: after.count * after.size, freeBytesBefore, compacted: true };
}
