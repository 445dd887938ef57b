import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { listAccounts, recordAccounts } from '../../src/db/accounts.js';
import {
  closeInterruptedRuns,
  DEFERRED_RUNS_LIMIT,
  deferRun,
  finishRun,
  flushRuns,
  INTERRUPTED_RUN_ERROR,
  lastSuccessAt,
  lastSuccesses,
  recentRuns,
  recordRun,
  startRun,
} from '../../src/db/collector-runs.js';
import { registerSecret } from '../../src/redact.js';
import { MINUTE, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();

describe('collector runs', () => {
  it('closes the runs left open as aborted, their end unknown, once, and leaves finished ones alone', () => {
    const database = temp.open();
    const done = startRun(database, { account: 'main', collector: 'pods', startedAt: T0 });
    finishRun(database, done, { endedAt: T0 + 900, outcome: 'ok', rows: 3 });
    const left = startRun(database, { account: 'main', collector: 'billing', startedAt: T0 + MINUTE });
    const alsoLeft = startRun(database, { account: 'other', collector: 'pods', startedAt: T0 + MINUTE });

    expect(closeInterruptedRuns(database)).toBe(2);
    const byId = new Map(recentRuns(database, { limit: 10 }).map((run) => [run.id, run]));
    for (const id of [left, alsoLeft]) {
      expect(byId.get(id)).toMatchObject({ outcome: 'aborted', endedAt: null, error: INTERRUPTED_RUN_ERROR });
    }
    expect(byId.get(done)).toMatchObject({ outcome: 'ok', endedAt: T0 + 900, error: null });
    expect(closeInterruptedRuns(database)).toBe(0);
  });

  it('records a run from start to finish and finds the last success per collector', () => {
    const database = temp.open();
    const first = startRun(database, { account: 'main', collector: 'pods', startedAt: T0 });
    expect(recentRuns(database, { collector: 'pods', limit: 5 })).toEqual([
      {
        id: first,
        account: 'main',
        collector: 'pods',
        startedAt: T0,
        endedAt: null,
        outcome: null,
        rows: 0,
        error: null,
        detail: null,
      },
    ]);
    finishRun(database, first, { endedAt: T0 + 900, outcome: 'ok', rows: 42 });

    const second = startRun(database, { account: 'main', collector: 'pods', startedAt: T0 + MINUTE });
    finishRun(database, second, { endedAt: T0 + MINUTE + 100, outcome: 'error', rows: 0, error: 'list pods: 503' });
    const billing = startRun(database, { account: 'main', collector: 'billing', startedAt: T0 });
    finishRun(database, billing, { endedAt: T0 + 5000, outcome: 'no_data', rows: 0 });
    const other = startRun(database, { account: 'other', collector: 'pods', startedAt: T0 + 2 * MINUTE });
    finishRun(database, other, { endedAt: T0 + 2 * MINUTE + 10, outcome: 'ok', rows: 1 });

    expect(lastSuccessAt(database, 'main', 'pods')).toBe(T0 + 900);
    expect(lastSuccessAt(database, 'main', 'billing')).toBeNull();
    expect(lastSuccesses(database)).toEqual([
      { account: 'main', collector: 'pods', endedAt: T0 + 900 },
      { account: 'other', collector: 'pods', endedAt: T0 + 2 * MINUTE + 10 },
    ]);
    expect(recentRuns(database, { account: 'main', collector: 'pods', limit: 1 })).toMatchObject([
      { id: second, outcome: 'error', error: 'list pods: 503' },
    ]);
  });

  it('finds the last success with one index seek', () => {
    const database = temp.open();
    const plan = database.sqlite
      .prepare(
        `EXPLAIN QUERY PLAN SELECT max(ended_at) FROM collector_runs
         WHERE account = ? AND collector = ? AND outcome = ?`,
      )
      .all('main', 'pods', 'ok') as Array<{ detail: string }>;
    expect(plan.map((step) => step.detail).join('\n')).toContain(
      'USING COVERING INDEX collector_runs_last_outcome_idx',
    );
  });

  it('never stores a registered secret in an error message', () => {
    const canary = 'rpa_CANARY0123456789SECRET';
    registerSecret(canary);
    const database = temp.open();
    const id = startRun(database, { account: 'main', collector: 'pods', startedAt: T0 });
    finishRun(database, id, {
      endedAt: T0 + 1,
      outcome: 'error',
      rows: 0,
      error: `GET /pods?api_key=${canary} failed`,
    });
    const stored = database.sqlite.prepare('SELECT error FROM collector_runs').pluck().get() as string;
    expect(stored).not.toContain(canary);
    expect(stored).toContain('[REDACTED]');
  });

  it('refuses to finish a run that does not exist, and an outcome outside the vocabulary', () => {
    const database = temp.open();
    expect(() => finishRun(database, 999, { endedAt: T0, outcome: 'ok', rows: 0 })).toThrow(
      'finish collector run 999: no such run',
    );
    const id = startRun(database, { account: 'main', collector: 'pods', startedAt: T0 });
    expect(() => finishRun(database, id, { endedAt: T0, outcome: 'fine' as 'ok', rows: 0 })).toThrow(
      /CHECK constraint failed/,
    );
  });
});

describe('collector runs kept back (deferRun)', () => {
  const run = (collector: string, at: number, outcome: 'ok' | 'error' = 'ok') => ({
    account: 'main',
    collector,
    startedAt: at,
    endedAt: at + 50,
    outcome,
    rows: 1,
  });

  it('are counted by lastSuccessAt before they are written, and written by any other read or write', () => {
    const database = temp.open();
    const elsewhere = new Sqlite(database.sqlite.name, { readonly: true });
    const stored = () => elsewhere.prepare('SELECT count(*) FROM collector_runs').pluck().get();
    try {
      recordRun(database, run('pods', T0));
      deferRun(database, run('pods', T0 + MINUTE));
      deferRun(database, run('pods', T0 + 2 * MINUTE, 'error'));
      deferRun(database, run('billing', T0 + 2 * MINUTE));
      expect(stored()).toBe(1);
      expect(lastSuccessAt(database, 'main', 'pods')).toBe(T0 + MINUTE + 50);
      expect(lastSuccessAt(database, 'main', 'billing')).toBe(T0 + 2 * MINUTE + 50);
      expect(lastSuccessAt(database, 'other', 'pods')).toBeNull();
      expect(stored()).toBe(1);
      // A run opened now is numbered after those that ended before it, as when each was written at once.
      const opened = startRun(database, { account: 'main', collector: 'stock', startedAt: T0 + 3 * MINUTE });
      expect(stored()).toBe(5);
      expect(recentRuns(database, { limit: 10 }).map((r) => [r.id, r.collector, r.outcome])).toEqual([
        [opened, 'stock', null],
        [4, 'billing', 'ok'],
        [3, 'pods', 'error'],
        [2, 'pods', 'ok'],
        [1, 'pods', 'ok'],
      ]);
      deferRun(database, run('pods', T0 + 4 * MINUTE));
      expect(recentRuns(database, { collector: 'pods', limit: 1 })).toMatchObject([{ startedAt: T0 + 4 * MINUTE }]);
      expect(stored()).toBe(6);
    } finally {
      elsewhere.close();
    }
  });

  it('are written together once there are enough of them; a failed write keeps the earlier ones back', () => {
    const database = temp.open();
    database.sqlite.exec(
      "CREATE TEMP TRIGGER full BEFORE INSERT ON collector_runs BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
    );
    for (let i = 0; i < DEFERRED_RUNS_LIMIT - 1; i++) deferRun(database, run('pods', T0 + i * MINUTE));
    expect(() => deferRun(database, run('pods', T0 + DEFERRED_RUNS_LIMIT * MINUTE))).toThrow(/disk is full/);
    expect(lastSuccessAt(database, 'main', 'pods')).toBe(T0 + (DEFERRED_RUNS_LIMIT - 2) * MINUTE + 50);
    database.sqlite.exec('DROP TRIGGER temp.full');
    flushRuns(database);
    const count = database.sqlite.prepare('SELECT count(*) FROM collector_runs').pluck();
    expect(count.get()).toBe(DEFERRED_RUNS_LIMIT - 1);
    for (let i = 0; i < DEFERRED_RUNS_LIMIT; i++) deferRun(database, run('stock', T0 + i * MINUTE));
    expect(count.get()).toBe(2 * DEFERRED_RUNS_LIMIT - 1);
  });
});

describe('accounts', () => {
  it('keeps the time an account was first seen', () => {
    const database = temp.open();
    recordAccounts(database, ['main', 'lab'], T0);
    recordAccounts(database, ['main', 'new'], T0 + MINUTE);
    expect(listAccounts(database)).toEqual([
      { name: 'lab', firstSeenAt: T0 },
      { name: 'main', firstSeenAt: T0 },
      { name: 'new', firstSeenAt: T0 + MINUTE },
    ]);
  });
});
