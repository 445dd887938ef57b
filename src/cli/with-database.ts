import { type Database, type OpenOptions, openDatabase } from '../db/open.js';

/** Runs `work` on the database at `path` and closes it once `work` has finished, awaited. */
export async function withDatabase<T>(
  path: string,
  options: OpenOptions,
  work: (database: Database) => T | Promise<T>,
): Promise<T> {
  const database = openDatabase(path, options);
  try {
    return await work(database);
  } finally {
    database.close();
  }
}
