import { asc, eq, gt, sql } from 'drizzle-orm';
import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import { silences } from './schema.js';
import { perDatabase } from './statements.js';

export type SilenceRecord = typeof silences.$inferSelect;

export const insertSilence = outsideTransaction(insertSilenceSync);

/** insertSilence, for a store function writing it inside its own transaction. */
export function insertSilenceSync(database: Database, silence: typeof silences.$inferInsert): void {
  database.db.insert(silences).values(silence).run();
}

/** Every silence, oldest first; `endingAfter` keeps those ending after that time. */
export async function listSilences(database: Database, endingAfter?: number): Promise<SilenceRecord[]> {
  const read = reads(database);
  return endingAfter === undefined ? read.all.all() : read.endingAfter.all({ endingAfter });
}

/** Every evaluation tick lists the silences: prepared once per database. */
const reads = perDatabase((database: Database) => {
  const query = () => database.db.select().from(silences);
  const order = [asc(silences.createdAt), asc(silences.id)];
  return {
    all: query()
      .orderBy(...order)
      .prepare(),
    endingAfter: query()
      .where(gt(silences.endsAt, sql.placeholder('endingAfter')))
      .orderBy(...order)
      .prepare(),
  };
});

export async function getSilence(database: Database, id: string): Promise<SilenceRecord | undefined> {
  return database.db.select().from(silences).where(eq(silences.id, id)).get();
}

/** Ends a silence at `now` (one that has not started yet never starts). Idempotent: an ended silence keeps its end. */
export async function expireSilence(database: Database, id: string, now: number): Promise<void> {
  database.db
    .update(silences)
    .set({ endsAt: sql`min(${silences.endsAt}, max(${silences.startsAt}, ${now}))` })
    .where(eq(silences.id, id))
    .run();
}
