import { and, desc, eq, max, sql } from 'drizzle-orm';
import { redact } from '../redact.js';
import type { Database } from './open.js';
import { type CollectorOutcome, collectorRuns } from './schema.js';

export type CollectorRunRecord = typeof collectorRuns.$inferSelect;

/** Opens a run row (outcome NULL until it finishes) and returns its id. */
export function startRun(database: Database, run: { account: string; collector: string; startedAt: number }): number {
  const row = database.db.insert(collectorRuns).values(run).returning({ id: collectorRuns.id }).get();
  return row.id;
}

export interface RunEnd {
  endedAt: number;
  outcome: CollectorOutcome;
  rows: number;
  /** The error message; redacted again here, because a database row outlives every log line. */
  error?: string | null;
  /** What an otherwise successful run had to leave out (rejected list items); redacted like error. */
  detail?: string | null;
}

export function finishRun(database: Database, id: number, end: RunEnd): void {
  const error = end.error ? redact(end.error) : null;
  const detail = end.detail ? redact(end.detail) : null;
  const result = database.db
    .update(collectorRuns)
    .set({ endedAt: end.endedAt, outcome: end.outcome, rows: end.rows, error, detail })
    .where(eq(collectorRuns.id, id))
    .run();
  if (result.changes !== 1) throw new Error(`finish collector run ${id}: no such run`);
}

/** When the collector last finished with outcome ok for the account, or null if it never did. */
export function lastSuccessAt(database: Database, account: string, collector: string): number | null {
  const row = database.db
    .select({ endedAt: max(collectorRuns.endedAt) })
    .from(collectorRuns)
    .where(
      and(eq(collectorRuns.account, account), eq(collectorRuns.collector, collector), eq(collectorRuns.outcome, 'ok')),
    )
    .get();
  return row?.endedAt ?? null;
}

/** The last success of every (account, collector) that ever succeeded. */
export function lastSuccesses(database: Database): Array<{ account: string; collector: string; endedAt: number }> {
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
export function recentRuns(
  database: Database,
  options: { account?: string; collector?: string; limit: number },
): CollectorRunRecord[] {
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
