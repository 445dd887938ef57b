import type { Database } from './open.js';
import { accounts } from './schema.js';

/** Registers the configured accounts; an account keeps the time it was first seen. */
export async function recordAccounts(database: Database, names: readonly string[], now: number): Promise<void> {
  database.transaction(() => {
    for (const name of names) {
      database.db.insert(accounts).values({ name, firstSeenAt: now }).onConflictDoNothing().run();
    }
  });
}
