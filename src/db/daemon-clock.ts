import { eq, sql } from 'drizzle-orm';
import type { Database } from './open.js';
import { daemonClock } from './schema.js';

export type DaemonClockRecord = Omit<typeof daemonClock.$inferSelect, 'id'>;

/** Replaces the record of the last daemon started in real time (the latest start wins). */
export async function recordDaemonClock(database: Database, record: DaemonClockRecord): Promise<void> {
  database.db
    .insert(daemonClock)
    .values({ id: 1, ...record })
    .onConflictDoUpdate({
      target: daemonClock.id,
      set: { offsetMs: sql`excluded.offset_ms`, startedAt: sql`excluded.started_at` },
    })
    .run();
}

/** Undefined when no daemon has run in real time on this database. */
export async function readDaemonClock(database: Database): Promise<DaemonClockRecord | undefined> {
  return database.db
    .select({ offsetMs: daemonClock.offsetMs, startedAt: daemonClock.startedAt })
    .from(daemonClock)
    .where(eq(daemonClock.id, 1))
    .get();
}
