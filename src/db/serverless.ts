import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { markFetched } from './freshness.js';
import { type LatestInput, type SyncResult, trackedRows, type UnreadableItems } from './latest.js';
import type { Database } from './open.js';
import { endpoints, endpointWorkerSamples } from './schema.js';
import { perDatabase, placeholdersFor, replaceOnConflict, rowWriter } from './statements.js';

export type EndpointRecord = typeof endpoints.$inferSelect;
export type EndpointInput = LatestInput<typeof endpoints>;
export type WorkerSampleRecord = typeof endpointWorkerSamples.$inferSelect;
/** An endpoint's workers `summary` at one poll. */
export type WorkerSampleInput = Omit<WorkerSampleRecord, 'account'>;

const endpointRows = trackedRows(endpoints, 'endpointId');

/**
 * One serverless poll in one transaction: the endpoint list synced, the workers' samples stored,
 * and the endpoints asked for (`fetched`) marked fetched of `fetchedKind`.
 */
export async function storeEndpointPoll(
  database: Database,
  poll: {
    account: string;
    endpoints: readonly EndpointInput[];
    unreadable: UnreadableItems;
    samples: readonly WorkerSampleInput[];
    fetchedKind: string;
    fetched: readonly string[];
    now: number;
  },
): Promise<SyncResult & { sampled: number }> {
  const { account, now } = poll;
  return database.transaction(() => {
    const { upserted, gone } = endpointRows(database, account, poll.endpoints, now, poll.unreadable);
    const sampled = writeWorkerSamples(database, account, poll.samples);
    markFetched(database, account, poll.fetchedKind, poll.fetched, now);
    return { upserted, gone, sampled };
  });
}

/** The account's live endpoints, by id (the waste snapshot reads them in its transaction). */
export function liveEndpointRows(database: Database, account: string): readonly EndpointRecord[] {
  return liveQuery(database).all({ account });
}

const liveQuery = perDatabase((database) =>
  database.db
    .select()
    .from(endpoints)
    .where(and(eq(endpoints.account, sql.placeholder('account')), isNull(endpoints.goneAt)))
    .orderBy(asc(endpoints.endpointId))
    .prepare(),
);

const insertSample = perDatabase((database) =>
  rowWriter<typeof endpointWorkerSamples.$inferInsert>(
    database,
    database.db
      .insert(endpointWorkerSamples)
      .values(placeholdersFor(endpointWorkerSamples))
      .onConflictDoUpdate(
        replaceOnConflict(endpointWorkerSamples, [
          endpointWorkerSamples.account,
          endpointWorkerSamples.observedAt,
          endpointWorkerSamples.endpointId,
        ]),
      ),
  ),
);

function writeWorkerSamples(database: Database, account: string, samples: readonly WorkerSampleInput[]): number {
  const insert = insertSample(database);
  for (const sample of samples) insert({ ...sample, account });
  return samples.length;
}
