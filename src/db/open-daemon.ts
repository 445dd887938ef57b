import type { Logger } from '../log.js';
import { closeInterruptedRuns } from './collector-runs.js';
import { lockDatabase } from './daemon-lock.js';
import { databaseWriteFailure } from './errors.js';
import { type Database, openDatabase } from './open.js';

const MEMORY = ':memory:';

/**
 * Opens the database for a daemon, the one process that writes and acts on it: takes its lock
 * first (DatabaseLockedError when another daemon has it), then opens and migrates it, then closes
 * the collector runs a daemon killed mid-run left open. Closing the database releases the lock.
 */
export async function openDaemonDatabase(path: string, options: { log: Logger }): Promise<Database> {
  const { log } = options;
  const lock = path === MEMORY ? undefined : lockDatabase(path);
  let database: Database;
  try {
    database = openDatabase(path, { log });
  } catch (error) {
    lock?.release();
    throw error;
  }
  try {
    const interrupted = await closeInterruptedRuns(database);
    if (interrupted > 0) {
      log.warn(
        { runs: interrupted, database: path },
        'collector runs left unfinished by a stopped daemon marked aborted',
      );
    }
  } catch (error) {
    // A database that cannot be written is the daemon's to report (readiness); the rows stay open.
    if (databaseWriteFailure(error) === undefined) {
      database.close();
      lock?.release();
      throw error;
    }
    log.error({ err: error, database: path }, 'collector runs left unfinished could not be marked aborted');
  }
  return {
    ...database,
    close() {
      try {
        database.close();
      } finally {
        lock?.release();
      }
    },
  };
}
