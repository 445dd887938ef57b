import { and, desc, eq, sql } from 'drizzle-orm';
import { redact } from '../redact.js';
import type { Database } from './open.js';
import { type CollectorOutcome, collectorRuns } from './schema.js';
import { perDatabase } from './statements.js';

// Prepared once per database: a replayed day runs thousands of collections.
const statements = perDatabase(({ sqlite }) => ({
  start: sqlite
    .prepare<{ account: string; collector: string; startedAt: number }>(
      'INSERT INTO collector_runs (account, collector, started_at) VALUES (@account, @collector, @startedAt) RETURNING id',
    )
    .pluck(),
  finish: sqlite.prepare<{
    id: number;
    endedAt: number;
    outcome: CollectorOutcome;
    rows: number;
    error: string | null;
    detail: string | null;
  }>(
    'UPDATE collector_runs SET ended_at = @endedAt, outcome = @outcome, rows = @rows, error = @error, detail = @detail WHERE id = @id',
  ),
  record: sqlite.prepare<{
    account: string;
    collector: string;
    startedAt: number;
    endedAt: number;
    outcome: CollectorOutcome;
    rows: number;
    error: string | null;
    detail: string | null;
  }>(
    `INSERT INTO collector_runs (account, collector, started_at, ended_at, outcome, rows, error, detail)
     VALUES (@account, @collector, @startedAt, @endedAt, @outcome, @rows, @error, @detail)`,
  ),
  lastSuccess: sqlite
    .prepare<[string, string]>(
      "SELECT max(ended_at) FROM collector_runs WHERE account = ? AND collector = ? AND outcome = 'ok'",
    )
    .pluck(),
}));

export type CollectorRunRecord = typeof collectorRuns.$inferSelect;

/** Opens a run row (outcome NULL until it finishes) and returns its id. */
export function startRun(database: Database, run: { account: string; collector: string; startedAt: number }): number {
  // Runs that ended before this one started get their ids first, as when they were written at once.
  flushRuns(database);
  return statements(database).start.get(run) as number;
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
  flushRuns(database);
  const error = end.error ? redact(end.error) : null;
  const detail = end.detail ? redact(end.detail) : null;
  const result = statements(database).finish.run({
    id,
    endedAt: end.endedAt,
    outcome: end.outcome,
    rows: end.rows,
    error,
    detail,
  });
  if (result.changes !== 1) throw new Error(`finish collector run ${id}: no such run`);
}

type FinishedRun = { account: string; collector: string; startedAt: number } & RunEnd;
type RunRow = Parameters<ReturnType<typeof statements>['record']['run']>[0];

function runRow(run: FinishedRun): RunRow {
  return {
    account: run.account,
    collector: run.collector,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    outcome: run.outcome,
    rows: run.rows,
    error: run.error ? redact(run.error) : null,
    detail: run.detail ? redact(run.detail) : null,
  };
}

/**
 * A run that is over, written in one statement: the row `startRun` then `finishRun` would leave.
 * A run shorter than its open row's delay (src/collectors/run.ts) never showed as going, and
 * one write instead of two is most of what keeping its books costs.
 */
export function recordRun(database: Database, run: FinishedRun): void {
  flushRuns(database);
  statements(database).record.run(runRow(run));
}

/**
 * Runs kept back by `deferRun`, per open database, in the order they ended, and the latest ok
 * end among them per account and collector (what `lastSuccessAt` adds to the table's).
 */
const deferred = new WeakMap<Database, { rows: RunRow[]; latestOk: Map<string, number> }>();

/** How many runs `deferRun` keeps back at most before writing them (a virtual hour or so of a replay). */
export const DEFERRED_RUNS_LIMIT = 256;

/**
 * Like `recordRun`, but the row is kept back and written with others in one transaction: where
 * the run's own commit was most of what a run cost and a crash cannot lose what matters (a
 * replay, whose database is rebuilt by replaying again). Every read and write of this module
 * sees kept-back runs as if written: `lastSuccessAt` counts them, the rest write them first.
 * Whoever defers must `flushRuns` before closing the database. Throws, keeping nothing of this
 * run, when writing the kept-back runs fails (the earlier ones stay kept back for the next try).
 */
export function deferRun(database: Database, run: FinishedRun): void {
  let kept = deferred.get(database);
  if (kept === undefined) {
    kept = { rows: [], latestOk: new Map() };
    deferred.set(database, kept);
  }
  const row = runRow(run);
  kept.rows.push(row);
  if (kept.rows.length >= DEFERRED_RUNS_LIMIT) {
    try {
      flushRuns(database);
    } catch (error) {
      kept.rows.pop();
      throw error;
    }
  }
  // Only once it is kept (or written): a run that failed to be written is not a success.
  if (row.outcome === 'ok' && kept.rows.length > 0) {
    const key = `${row.account}\n${row.collector}`;
    if (!(row.endedAt <= (kept.latestOk.get(key) ?? Number.NEGATIVE_INFINITY))) kept.latestOk.set(key, row.endedAt);
  }
}

/** Writes the runs `deferRun` kept back, in one transaction; on failure they stay kept back. */
export function flushRuns(database: Database): void {
  const kept = deferred.get(database);
  if (kept === undefined || kept.rows.length === 0) return;
  const { record } = statements(database);
  database.sqlite.transaction(() => {
    for (const row of kept.rows) record.run(row);
  })();
  kept.rows.length = 0;
  kept.latestOk.clear();
}

/** What an interrupted run's row says: it never ended by itself, so its end stays unknown (NULL). */
export const INTERRUPTED_RUN_ERROR =
  'interrupted: the daemon stopped before this run finished (killed, or the machine went down); found at the next start';

/**
 * Closes every run still open (outcome NULL) as `aborted`, with INTERRUPTED_RUN_ERROR, and returns
 * how many. Only for a daemon holding the database's lock (db/daemon-lock.ts): then no run of
 * another process can be in flight, so an open row is one whose daemon died before finishing it.
 */
export function closeInterruptedRuns(database: Database): number {
  return database.sqlite
    .prepare("UPDATE collector_runs SET outcome = 'aborted', error = ? WHERE outcome IS NULL")
    .run(INTERRUPTED_RUN_ERROR).changes;
}

/** When the collector last finished with outcome ok for the account, or null if it never did. */
export function lastSuccessAt(database: Database, account: string, collector: string): number | null {
  const stored = (statements(database).lastSuccess.get(account, collector) as number | null | undefined) ?? null;
  const kept = deferred.get(database)?.latestOk.get(`${account}\n${collector}`);
  return kept !== undefined && (stored === null || kept > stored) ? kept : stored;
}

/** The last success of every (account, collector) that ever succeeded. */
export function lastSuccesses(database: Database): Array<{ account: string; collector: string; endedAt: number }> {
  flushRuns(database);
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
  flushRuns(database);
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
