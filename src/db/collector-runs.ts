import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { redact } from '../redact.js';
import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import { type CollectorOutcome, collectorRuns } from './schema.js';
import { perDatabase } from './statements.js';

// Prepared once per database: the snapshot of every tick reads it.
const lastSuccess = perDatabase(({ sqlite }) =>
  sqlite
    .prepare<[string, string], number | null>(
      "SELECT max(ended_at) FROM collector_runs WHERE account = ? AND collector = ? AND outcome = 'ok'",
    )
    .pluck(),
);

export type CollectorRunRecord = typeof collectorRuns.$inferSelect;

/** Opens a run row (outcome NULL until it finishes) and returns its id. */
export async function startRun(
  database: Database,
  run: { account: string; collector: string; startedAt: number },
): Promise<number> {
  return database.db.insert(collectorRuns).values(run).returning({ id: collectorRuns.id }).get().id;
}

interface RunEnd {
  endedAt: number;
  outcome: CollectorOutcome;
  rows: number;
  error?: string | null;
  /** What an otherwise successful run had to leave out (rejected list items). */
  detail?: string | null;
}

export async function finishRun(database: Database, id: number, end: RunEnd): Promise<void> {
  const result = database.db.update(collectorRuns).set(ended(end)).where(eq(collectorRuns.id, id)).run();
  if (result.changes !== 1) throw new Error(`finish collector run ${id}: no such run`);
}

/** A run's end as stored: its error and detail redacted again here, because a database row outlives every log line. */
function ended(end: RunEnd) {
  const { endedAt, outcome, rows, error, detail } = end;
  return { endedAt, outcome, rows, error: error ? redact(error) : null, detail: detail ? redact(detail) : null };
}

type FinishedRun = { account: string; collector: string; startedAt: number } & RunEnd;

/**
 * A run that is over, written in one statement: the row `startRun` then `finishRun` would leave.
 * A run shorter than its open row's delay (src/collectors/run.ts) never showed as going, and
 * it is written once, not opened and then closed.
 */
export async function recordRun(database: Database, run: FinishedRun): Promise<void> {
  const { account, collector, startedAt } = run;
  database.db
    .insert(collectorRuns)
    .values({ account, collector, startedAt, ...ended(run) })
    .run();
}

/** What an interrupted run's row says: it never ended by itself, so its end stays unknown (NULL). */
export const INTERRUPTED_RUN_ERROR =
  'interrupted: the daemon stopped before this run finished (killed, or the machine went down); found at the next start';

/**
 * Closes every run still open (outcome NULL) as `aborted`, with INTERRUPTED_RUN_ERROR, and returns
 * how many. Only for a daemon holding the database's lock (db/daemon-lock.ts): then no run of
 * another process can be in flight, so an open row is one whose daemon died before finishing it.
 */
export async function closeInterruptedRuns(database: Database): Promise<number> {
  return database.db
    .update(collectorRuns)
    .set({ outcome: 'aborted', error: INTERRUPTED_RUN_ERROR })
    .where(isNull(collectorRuns.outcome))
    .run().changes;
}

/** When the collector last finished with outcome ok for the account, or null if it never did. */
export const lastSuccessAt = outsideTransaction(lastSuccessSync);

/** lastSuccessAt, for a store function reading it inside its own (snapshot) transaction. */
export function lastSuccessSync(database: Database, account: string, collector: string): number | null {
  return lastSuccess(database).get(account, collector) ?? null;
}

/** The last success of every (account, collector) that ever succeeded. */
export async function lastSuccesses(
  database: Database,
): Promise<Array<{ account: string; collector: string; endedAt: number }>> {
  return database.db
    .select({
      account: collectorRuns.account,
      collector: collectorRuns.collector,
      endedAt: sql<number>`max(${collectorRuns.endedAt})`,
    })
    .from(collectorRuns)
    .where(eq(collectorRuns.outcome, 'ok'))
    .groupBy(collectorRuns.account, collectorRuns.collector)
    .orderBy(collectorRuns.account, collectorRuns.collector)
    .all();
}

/** The most recent runs, newest first, optionally of one collector. */
export async function recentRuns(
  database: Database,
  options: { account?: string; collector?: string; limit: number },
): Promise<CollectorRunRecord[]> {
  return database.db
    .select()
    .from(collectorRuns)
    .where(
      and(
        options.account === undefined ? undefined : eq(collectorRuns.account, options.account),
        options.collector === undefined ? undefined : eq(collectorRuns.collector, options.collector),
      ),
    )
    .orderBy(desc(collectorRuns.startedAt), desc(collectorRuns.id))
    .limit(options.limit)
    .all();
}
