import { sql } from 'drizzle-orm';
import type { Database } from './open.js';

/** Runs the cheapest query there is, for readiness: rejects with what the database answers when it cannot. */
export async function pingDatabase(database: Database): Promise<void> {
  database.db.get(sql`SELECT 1`);
}
