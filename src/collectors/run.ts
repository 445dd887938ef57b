import { ApiError, NoDataError } from '../api/index.js';
import { finishRun, startRun } from '../db/collector-runs.js';
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
}

/**
 * Runs one collector for one account and keeps the books: a collector_runs row, a log line
 * bound to the collector, and a report for metrics and events. A failure is recorded and
 * returned, never thrown: the daemon goes on. NoDataError (GraphQL retired, nothing to read)
 * is recorded as `no_data`, and a run cut short by shutdown or its timeout as `aborted`.
 */
export async function runCollector(
  collector: Collector,
  base: Omit<CollectContext, 'now' | 'log' | 'signal'> & {
    log: CollectContext['log'];
    signal: AbortSignal;
    timeoutMs: number;
  },
): Promise<RunReport> {
  const startedAt = base.clock.now();
  const log = base.log.child({ collector: collector.name, account: base.account });
  const id = startRun(base.db, { account: base.account, collector: collector.name, startedAt });
  const signal = AbortSignal.any([base.signal, AbortSignal.timeout(base.timeoutMs)]);
  let report: RunReport;
  try {
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
    const message = error instanceof Error ? error.message : String(error);
    const outcome = outcomeOf(error, signal);
    report = {
      account: base.account,
      collector: collector.name,
      outcome,
      rows: 0,
      startedAt,
      endedAt: base.clock.now(),
      error: message,
    };
    if (outcome === 'no_data') log.info({ reason: message }, 'collector has no data');
    else if (outcome === 'aborted') log.warn({ reason: message }, 'collector run aborted');
    else log.error({ err: describe(error) }, 'collector run failed');
  }
  finishRun(base.db, id, {
    endedAt: report.endedAt,
    outcome: report.outcome,
    rows: report.rows,
    error: report.error ?? null,
    detail: report.detail ?? null,
  });
  return report;
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
