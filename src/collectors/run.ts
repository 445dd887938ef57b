import { ApiError, NoDataError } from '../api/index.js';
import { finishRun, recordRun, startRun } from '../db/collector-runs.js';
import { databaseWriteFailure } from '../db/errors.js';
import type { Database } from '../db/open.js';
import type { CollectorOutcome } from '../db/schema.js';
import type { CollectContext, Collector } from './collector.js';

export interface RunReport {
  account: string;
  collector: string;
  outcome: CollectorOutcome;
  rows: number;
  startedAt: number;
  endedAt: number;
  error?: string;
  /** What an ok run had to leave out (e.g. rejected list items). */
  detail?: string;
  /** Set when the run failed because the database could not be written, with SQLite's reason. */
  databaseFailure?: string;
}

/**
 * How long (real time) a run goes before its collector_runs row is written as going ("running" on
 * the status page); a run that ends sooner is written once, when it ends.
 */
export const OPEN_ROW_AFTER_MS = 1000;

/**
 * Runs one collector for one account and keeps the books: a collector_runs row, a log line bound
 * to the collector, and a report for metrics and events. A failure (of the run, or of its books:
 * disk full) is recorded and returned, never thrown. NoDataError is recorded as `no_data`, a run
 * cut short by shutdown or its timeout as `aborted`.
 */
export async function runCollector(
  collector: Collector,
  base: Omit<CollectContext, 'now' | 'log' | 'signal'> & {
    log: CollectContext['log'];
    signal: AbortSignal;
    timeoutMs: number;
    /** Defaults to OPEN_ROW_AFTER_MS; 0 writes the open row at once. */
    openRowAfterMs?: number;
  },
): Promise<RunReport> {
  const startedAt = base.clock.now();
  const log = runLog(base.log, collector.name, base.account);
  const { signal, release } = runSignal(base.signal, base.timeoutMs);
  const row = openRow(base.db, base.account, collector.name, startedAt, base.openRowAfterMs ?? OPEN_ROW_AFTER_MS);
  let report: RunReport;
  try {
    // A row written at once is waited for: its failure fails the run before the collector runs.
    const writing = row.writing();
    if (writing !== undefined) await writing;
    row.check();
    const { rows, detail } = await collector.collect({ ...base, now: startedAt, log, signal });
    report = {
      account: base.account,
      collector: collector.name,
      outcome: 'ok',
      rows,
      startedAt,
      endedAt: base.clock.now(),
      ...(detail === undefined ? {} : { detail }),
    };
    log.debug({ rows, ms: report.endedAt - startedAt }, 'collector run finished');
  } catch (error) {
    report = failed(base.account, collector.name, startedAt, base.clock.now(), error, signal);
    if (report.outcome === 'no_data') log.info({ reason: report.error }, 'collector has no data');
    else if (report.outcome === 'aborted') log.warn({ reason: report.error }, 'collector run aborted');
    else log.error({ err: describe(error) }, 'collector run failed');
  } finally {
    release();
  }
  const id = await row.close();
  const openFailure = row.failure();
  if (openFailure !== undefined) {
    // Written at once, its failure failed the run above, before the collector ran (as when the
    // row always came first). Written later, it fails the run now: its books are not kept.
    if (report.databaseFailure === undefined) {
      report = failed(base.account, collector.name, startedAt, report.endedAt, openFailure.error, signal);
      log.error({ err: describe(openFailure.error) }, 'collector run could not be recorded');
    }
  } else {
    try {
      const end = {
        endedAt: report.endedAt,
        outcome: report.outcome,
        rows: report.rows,
        error: report.error ?? null,
        detail: report.detail ?? null,
      };
      const run = { account: base.account, collector: collector.name, startedAt, ...end };
      if (id !== undefined) await finishRun(base.db, id, end);
      else await recordRun(base.db, run);
    } catch (error) {
      // The collector's work may have landed, but a run whose record failed is not a success:
      // freshness is read from these records.
      report = failed(base.account, collector.name, startedAt, report.endedAt, error, signal);
      log.error({ err: describe(error) }, 'collector run could not be recorded');
    }
  }
  return report;
}

/**
 * The run's open row, written after `afterMs` of real time if the run still goes (at once for 0).
 * `close` says which row to finish (undefined: none was written, write the whole run).
 */
function openRow(
  db: Database,
  account: string,
  collector: string,
  startedAt: number,
  afterMs: number,
): {
  writing(): Promise<void> | undefined;
  check(): void;
  failure(): { error: unknown } | undefined;
  close(): Promise<number | undefined>;
} {
  let id: number | undefined;
  let failure: { error: unknown } | undefined;
  let closed = false;
  // The row's write, once begun (by the timer or at once): settled, it has set id or failure.
  let writing: Promise<void> | undefined;
  const open = () => {
    if (closed) return;
    writing = startRun(db, { account, collector, startedAt }).then(
      (written) => {
        id = written;
      },
      (error: unknown) => {
        failure = { error };
      },
    );
  };
  const timer = afterMs > 0 ? setTimeout(open, afterMs) : undefined;
  timer?.unref();
  if (afterMs <= 0) open();
  return {
    writing: () => writing,
    check() {
      if (failure) throw failure.error;
    },
    failure: () => failure,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await writing;
      return id;
    },
  };
}

/** A run's logger, made once per (logger, collector, account): a child serialises its bindings. */
const runLogs = new WeakMap<CollectContext['log'], Map<string, CollectContext['log']>>();

function runLog(parent: CollectContext['log'], collector: string, account: string): CollectContext['log'] {
  let byKey = runLogs.get(parent);
  if (byKey === undefined) {
    byKey = new Map();
    runLogs.set(parent, byKey);
  }
  const key = `${collector}\n${account}`;
  let log = byKey.get(key);
  if (log === undefined) {
    log = parent.child({ collector, account });
    byKey.set(key, log);
  }
  return log;
}

/**
 * The run's signal, as `AbortSignal.any([parent, AbortSignal.timeout(timeoutMs)])` with the same
 * reasons, but `release` drops its timer and its listener on the daemon-long shutdown signal when
 * the run ends, so nothing outlives it. The timer is unref'd: a deadline never keeps the process alive.
 */
function runSignal(parent: AbortSignal, timeoutMs: number): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, release: () => {} };
  }
  const onAbort = () => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    timeoutMs,
  );
  timer.unref();
  return {
    signal: controller.signal,
    release: () => {
      clearTimeout(timer);
      parent.removeEventListener('abort', onAbort);
    },
  };
}

function failed(
  account: string,
  collector: string,
  startedAt: number,
  endedAt: number,
  error: unknown,
  signal: AbortSignal,
): RunReport {
  const message = error instanceof Error ? error.message : String(error);
  const databaseFailure = databaseWriteFailure(error);
  return {
    account,
    collector,
    outcome: outcomeOf(error, signal),
    rows: 0,
    startedAt,
    endedAt,
    error: databaseFailure ? `database: ${databaseFailure}` : message,
    ...(databaseFailure ? { databaseFailure } : {}),
  };
}

/** Shutdown and the run timeout abort a run; that says nothing about RunPod or its data. */
function outcomeOf(error: unknown, signal: AbortSignal): CollectorOutcome {
  if (error instanceof NoDataError) return 'no_data';
  if (signal.aborted) return 'aborted';
  return 'error';
}

function describe(error: unknown): Record<string, unknown> {
  if (error instanceof ApiError)
    return { kind: error.kind, status: error.status, op: error.op, message: error.message };
  if (error instanceof Error) return { message: error.message, stack: error.stack };
  return { message: String(error) };
}
