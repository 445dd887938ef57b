import { and, asc, eq, gte, isNull, lte, sql } from 'drizzle-orm';
import { markFetched } from './freshness.js';
import { type LatestInput, type SyncResult, trackedRows, trackedSync, type UnreadableItems } from './latest.js';
import type { Database } from './open.js';
import { endpoints, endpointWorkerSamples } from './schema.js';
import { perDatabase, placeholdersFor, replaceOnConflict, rowWriter } from './statements.js';

export type EndpointRecord = typeof endpoints.$inferSelect;
export type EndpointInput = LatestInput<typeof endpoints>;
export type WorkerSampleRecord = typeof endpointWorkerSamples.$inferSelect;
/** An endpoint's workers `summary` at one poll. */
export type WorkerSampleInput = Omit<WorkerSampleRecord, 'account'>;

/** The latest `GET /serverless` of an account: upserts every endpoint, marks the missing ones gone. */
export const syncEndpoints = trackedSync(endpoints, 'endpointId');
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

/** The account's live items, by id. */
export async function liveEndpoints(database: Database, account: string): Promise<readonly EndpointRecord[]> {
  return liveEndpointRows(database, account);
}

/** liveEndpoints' read, for store functions reading in their own transaction. */
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

export async function insertWorkerSamples(
  database: Database,
  account: string,
  samples: readonly WorkerSampleInput[],
): Promise<number> {
  return database.transaction(() => writeWorkerSamples(database, account, samples));
}

/** insertWorkerSamples' body, run within storeEndpointPoll's transaction. */
function writeWorkerSamples(database: Database, account: string, samples: readonly WorkerSampleInput[]): number {
  const insert = insertSample(database);
  for (const sample of samples) insert({ ...sample, account });
  return samples.length;
}

/** Every endpoint's samples with from <= observed_at <= to, oldest first. */
export async function workerSamplesBetween(
  database: Database,
  account: string,
  from: number,
  to: number,
): Promise<WorkerSampleRecord[]> {
  return database.db
    .select()
    .from(endpointWorkerSamples)
    .where(
      and(
        eq(endpointWorkerSamples.account, account),
        gte(endpointWorkerSamples.observedAt, from),
        lte(endpointWorkerSamples.observedAt, to),
      ),
    )
    .orderBy(asc(endpointWorkerSamples.observedAt), asc(endpointWorkerSamples.endpointId))
    .all();
}
