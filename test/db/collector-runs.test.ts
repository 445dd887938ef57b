import { asc } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { recordAccounts } from '../../src/db/accounts.js';
import {
  closeInterruptedRuns,
  finishRun,
  INTERRUPTED_RUN_ERROR,
  lastSuccessAt,
  lastSuccesses,
  recentRuns,
  startRun,
} from '../../src/db/collector-runs.js';
import { accounts } from '../../src/db/schema.js';
import { registerSecret } from '../../src/redact.js';
import { MINUTE, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();

describe('collector runs', () => {
  it('closes the runs left open as aborted, their end unknown, once, and leaves finished ones alone', async () => {
    const database = temp.open();
    const done = await startRun(database, { account: 'main', collector: 'pods', startedAt: T0 });
    await finishRun(database, done, { endedAt: T0 + 900, outcome: 'ok', rows: 3 });
    const left = await startRun(database, { account: 'main', collector: 'billing', startedAt: T0 + MINUTE });
    const alsoLeft = await startRun(database, { account: 'other', collector: 'pods', startedAt: T0 + MINUTE });

    expect(await closeInterruptedRuns(database)).toBe(2);
    const byId = new Map((await recentRuns(database, { limit: 10 })).map((run) => [run.id, run]));
    for (const id of [left, alsoLeft]) {
      expect(byId.get(id)).toMatchObject({ outcome: 'aborted', endedAt: null, error: INTERRUPTED_RUN_ERROR });
    }
    expect(byId.get(done)).toMatchObject({ outcome: 'ok', endedAt: T0 + 900, error: null });
    expect(await closeInterruptedRuns(database)).toBe(0);
  });

  it('records a run from start to finish and finds the last success per collector', async () => {
    const database = temp.open();
    const first = await startRun(database, { account: 'main', collector: 'pods', startedAt: T0 });
    expect(await recentRuns(database, { collector: 'pods', limit: 5 })).toEqual([
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
    await finishRun(database, first, { endedAt: T0 + 900, outcome: 'ok', rows: 42 });

    const second = await startRun(database, { account: 'main', collector: 'pods', startedAt: T0 + MINUTE });
    await finishRun(database, second, {
      endedAt: T0 + MINUTE + 100,
      outcome: 'error',
      rows: 0,
      error: 'list pods: 503',
    });
    const billing = await startRun(database, { account: 'main', collector: 'billing', startedAt: T0 });
    await finishRun(database, billing, { endedAt: T0 + 5000, outcome: 'no_data', rows: 0 });
    const other = await startRun(database, { account: 'other', collector: 'pods', startedAt: T0 + 2 * MINUTE });
    await finishRun(database, other, { endedAt: T0 + 2 * MINUTE + 10, outcome: 'ok', rows: 1 });

    expect(await lastSuccessAt(database, 'main', 'pods')).toBe(T0 + 900);
    expect(await lastSuccessAt(database, 'main', 'billing')).toBeNull();
    expect(await lastSuccesses(database)).toEqual([
      { account: 'main', collector: 'pods', endedAt: T0 + 900 },
      { account: 'other', collector: 'pods', endedAt: T0 + 2 * MINUTE + 10 },
    ]);
    expect(await recentRuns(database, { account: 'main', collector: 'pods', limit: 1 })).toMatchObject([
      { id: second, outcome: 'error', error: 'list pods: 503' },
    ]);
  });

  it('finds the last success with one index seek', async () => {
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

  it('never stores a registered secret in an error message', async () => {
    const canary = 'rpa_CANARY0123456789SECRET';
    registerSecret(canary);
    const database = temp.open();
    const id = await startRun(database, { account: 'main', collector: 'pods', startedAt: T0 });
    await finishRun(database, id, {
      endedAt: T0 + 1,
      outcome: 'error',
      rows: 0,
      error: `GET /pods?api_key=${canary} failed`,
    });
    const stored = database.sqlite.prepare('SELECT error FROM collector_runs').pluck().get() as string;
    expect(stored).not.toContain(canary);
    expect(stored).toContain('[REDACTED]');
  });

  it('refuses to finish a run that does not exist, and an outcome outside the vocabulary', async () => {
    const database = temp.open();
    await expect(finishRun(database, 999, { endedAt: T0, outcome: 'ok', rows: 0 })).rejects.toThrow(
      'finish collector run 999: no such run',
    );
    const id = await startRun(database, { account: 'main', collector: 'pods', startedAt: T0 });
    await expect(finishRun(database, id, { endedAt: T0, outcome: 'fine' as 'ok', rows: 0 })).rejects.toThrow(
      /CHECK constraint failed/,
    );
  });
});

describe('accounts', () => {
  it('keeps the time an account was first seen', async () => {
    const database = temp.open();
    await recordAccounts(database, ['main', 'lab'], T0);
    await recordAccounts(database, ['main', 'new'], T0 + MINUTE);
    expect(database.db.select().from(accounts).orderBy(asc(accounts.name)).all()).toEqual([
      { name: 'lab', firstSeenAt: T0 },
      { name: 'main', firstSeenAt: T0 },
      { name: 'new', firstSeenAt: T0 + MINUTE },
    ]);
  });
});
