import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/index.js';
import { VirtualClock } from '../../src/clock.js';
import type { CollectContext, Collector } from '../../src/collectors/collector.js';
import { runCollector } from '../../src/collectors/run.js';
import { defaultConfig } from '../../src/config/load.js';
import { finishRun, recentRuns, recordRun, startRun } from '../../src/db/collector-runs.js';
import type { Database } from '../../src/db/open.js';
import { silentLogger } from '../../src/log.js';
import { registerSecret } from '../../src/redact.js';
import { T0, useTempDatabases } from '../db/support.js';

const temp = useTempDatabases();

/** A collector that waits until the test lets it finish, with what it should report. */
function gated(outcome: { rows: number } | Error) {
  let finish: () => void = () => {};
  const gate = new Promise<void>((resolve) => (finish = resolve));
  const collector: Collector = {
    name: 'pods',
    feeds: [],
    async collect() {
      await gate;
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
  };
  return { collector, finish };
}

function base(database: Database, clock: VirtualClock, openRowAfterMs?: number) {
  return {
    account: 'main',
    api: {} as ApiClient,
    db: database,
    config: defaultConfig([{ name: 'main', apiKey: 'rpa_RUNTESTKEY0123456789' }]),
    clock,
    log: silentLogger(),
    signal: new AbortController().signal,
    timeoutMs: 60_000,
    ...(openRowAfterMs === undefined ? {} : { openRowAfterMs }),
  } satisfies Omit<CollectContext, 'now' | 'signal' | 'log'> & Record<string, unknown>;
}

const rowsOf = (database: Database) =>
  database.sqlite
    .prepare('SELECT account, collector, started_at, ended_at, outcome, rows, error, detail FROM collector_runs')
    .all();

describe('a collector run’s books', () => {
  it('writes a short run once, when it ends, as the row start and finish would leave', async () => {
    const database = temp.open();
    const clock = new VirtualClock(T0);
    const { collector, finish } = gated({ rows: 7 });
    const running = runCollector(collector, base(database, clock));
    // Still going, but for less than the open row's delay: nothing written yet.
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(rowsOf(database)).toEqual([]);
    await clock.advanceTo(T0 + 900);
    finish();
    const report = await running;
    expect(report).toMatchObject({ outcome: 'ok', rows: 7, startedAt: T0, endedAt: T0 + 900 });

    const reference = temp.open('reference.db');
    const id = await startRun(reference, { account: 'main', collector: 'pods', startedAt: T0 });
    await finishRun(reference, id, { endedAt: T0 + 900, outcome: 'ok', rows: 7 });
    expect(rowsOf(database)).toEqual(rowsOf(reference));
  });

  it('shows a run as going once its open row is due, and finishes that same row', async () => {
    const database = temp.open();
    const clock = new VirtualClock(T0);
    const { collector, finish } = gated(new Error('list pods: 503'));
    const running = runCollector(collector, base(database, clock, 0));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(await recentRuns(database, { limit: 5 })).toMatchObject([{ startedAt: T0, endedAt: null, outcome: null }]);
    finish();
    expect(await running).toMatchObject({ outcome: 'error', error: 'list pods: 503' });
    expect(await recentRuns(database, { limit: 5 })).toMatchObject([
      { startedAt: T0, endedAt: T0, outcome: 'error', error: 'list pods: 503' },
    ]);
  });

  it('fails the run without calling the collector when its open row cannot be written', async () => {
    const database = temp.open();
    database.sqlite.exec(
      'CREATE TRIGGER no_runs BEFORE INSERT ON collector_runs BEGIN SELECT RAISE(ABORT, "full"); END',
    );
    let called = false;
    const collector: Collector = {
      name: 'pods',
      feeds: [],
      async collect() {
        called = true;
        return { rows: 1 };
      },
    };
    const report = await runCollector(collector, base(database, new VirtualClock(T0), 0));
    expect(called).toBe(false);
    expect(report).toMatchObject({ outcome: 'error', rows: 0 });
    expect(report.error).toContain('full');
  });

  it('fails a short run whose one row cannot be written', async () => {
    const database = temp.open();
    database.sqlite.exec(
      'CREATE TRIGGER no_runs BEFORE INSERT ON collector_runs BEGIN SELECT RAISE(ABORT, "full"); END',
    );
    const { collector, finish } = gated({ rows: 3 });
    const running = runCollector(collector, base(database, new VirtualClock(T0)));
    finish();
    const report = await running;
    expect(report).toMatchObject({ outcome: 'error', rows: 0 });
    expect(report.error).toContain('full');
  });
});

describe('a collector run’s real-time deadlines', () => {
  /** A collector that runs until its run's signal aborts, and fails with the signal's reason. */
  const untilAborted: Collector = {
    name: 'pods',
    feeds: [],
    collect: (ctx) =>
      new Promise((_, reject) => {
        if (ctx.signal.aborted) reject(ctx.signal.reason);
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
      }),
  };

  it('shows a run as going once it has run longer than its open row’s delay', async () => {
    const database = temp.open();
    const { collector, finish } = gated({ rows: 2 });
    const running = runCollector(collector, base(database, new VirtualClock(T0), 20));
    // Waits for the row, however long the machine takes to get there.
    while ((await recentRuns(database, { limit: 1 })).length === 0)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await recentRuns(database, { limit: 5 })).toMatchObject([{ startedAt: T0, endedAt: null, outcome: null }]);
    finish();
    expect(await running).toMatchObject({ outcome: 'ok', rows: 2 });
    expect(await recentRuns(database, { limit: 5 })).toMatchObject([
      { startedAt: T0, endedAt: T0, outcome: 'ok', rows: 2 },
    ]);
  });

  it('aborts a run that outlives its timeout, and only that one', async () => {
    const database = temp.open();
    const clock = new VirtualClock(T0);
    const quick = gated({ rows: 1 });
    const slow = runCollector(untilAborted, { ...base(database, clock), timeoutMs: 20 });
    const fast = runCollector(quick.collector, { ...base(database, clock), timeoutMs: 60_000 });
    const report = await slow;
    expect(report).toMatchObject({ outcome: 'aborted', rows: 0 });
    expect(report.error).toMatch(/timeout/);
    quick.finish();
    expect(await fast).toMatchObject({ outcome: 'ok', rows: 1 });
  });

  it('aborts every run going at shutdown with its reason, leaving no listener on the shutdown signal once a run ends', async () => {
    const database = temp.open();
    const clock = new VirtualClock(T0);
    const shutdown = new AbortController();
    for (let i = 0; i < 20; i++) {
      const { collector, finish } = gated({ rows: i });
      const running = runCollector(collector, { ...base(database, clock), signal: shutdown.signal });
      finish();
      await running;
    }
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
    const going = [1, 2, 3].map(() =>
      runCollector(untilAborted, { ...base(database, clock), signal: shutdown.signal }),
    );
    await new Promise<void>((resolve) => setImmediate(resolve));
    shutdown.abort(new Error('podwarden is shutting down'));
    for (const report of await Promise.all(going)) {
      expect(report).toMatchObject({ outcome: 'aborted', error: 'podwarden is shutting down' });
    }
    // A run that starts after shutdown is aborted from the start.
    expect(await runCollector(untilAborted, { ...base(database, clock), signal: shutdown.signal })).toMatchObject({
      outcome: 'aborted',
      error: 'podwarden is shutting down',
    });
  });
});

describe('recordRun', () => {
  it('redacts like finishRun', async () => {
    registerSecret('rpa_RECORDRUNCANARY0123456789');
    const database = temp.open();
    await recordRun(database, {
      account: 'main',
      collector: 'billing',
      startedAt: T0,
      endedAt: T0 + 5,
      outcome: 'error',
      rows: 0,
      error: 'GET /billing?api_key=rpa_RECORDRUNCANARY0123456789 failed',
      detail: null,
    });
    expect((await recentRuns(database, { limit: 1 }))[0]?.error).toBe('GET /billing?api_key=[REDACTED] failed');
  });
});
