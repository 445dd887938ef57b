import { describe, expect, it } from 'vitest';
import { type ReceiptInput, recentReceipts, recordReceipt, stopsSince } from '../../src/db/receipts.js';
import type { ReceiptDecision, ReceiptEvidence } from '../../src/db/tables/idle.js';
import { useTempDatabases } from './support.js';

const temp = useTempDatabases();
const T0 = Date.parse('2026-11-02T12:00:00Z');
const MINUTE = 60_000;

function receipt(key: string, fields: { account?: string; rule?: string; at: number; decision: ReceiptDecision }) {
  const input: ReceiptInput = {
    idempotencyKey: key,
    account: fields.account ?? 'main',
    podId: `pod-${key}`,
    podName: `pod-${key}`,
    rule: fields.rule ?? 'default',
    kind: 'idle',
    episodeStartedAt: fields.at,
    decidedAt: fields.at,
    decision: fields.decision,
    reason: null,
    dryRun: fields.decision === 'dry_run',
    plannedStopAt: null,
    costPerHr: 1,
    savingPerHr: 1,
    evidence: {
      windowFrom: 0,
      windowTo: 0,
      thresholds: { utilThreshold: 5, coverage: 0.9, minSamples: 3, windowMs: 0, graceMs: 0, memoryThreshold: 10 },
      coverage: 1,
      idleSamples: 3,
      held: false,
      samples: [],
    },
    guards: [],
  };
  return input;
}

describe('recordReceipt', () => {
  it('stores a receipt once under its key, and reads it back as written (JSON evidence and guards, booleans, NULLs)', async () => {
    const database = temp.open();
    const written: ReceiptInput = {
      ...receipt('k1', { at: T0, decision: 'blocked' }),
      reason: 'scarcity: H100 at availability LOW',
      plannedStopAt: null,
      dryRun: true,
      guards: [{ guard: 'scarcity', passed: false, detail: 'H100 at availability LOW' }],
    };
    (written.evidence as ReceiptEvidence).samples = [
      { at: T0 - MINUTE, state: 'IDLE', gpuUtil: 0, gpuMemoryUtil: null },
    ];
    expect(await recordReceipt(database, written)).toBe(true);
    expect(await recordReceipt(database, { ...written, reason: 'again' })).toBe(false);
    const [stored, ...rest] = await recentReceipts(database, 10);
    expect(rest).toEqual([]);
    expect({ ...stored, id: undefined }).toEqual({ ...written, id: undefined });
  });
});

describe('stopsSince (the hourly stop cap)', () => {
  it("counts the rule's stops and dry-run stops in the account after `since`, nothing else", async () => {
    const database = temp.open();
    const rows = [
      receipt('stopped', { at: T0 - 10 * MINUTE, decision: 'stopped' }),
      receipt('dry', { at: T0 - 5 * MINUTE, decision: 'dry_run' }),
      receipt('blocked', { at: T0 - 5 * MINUTE, decision: 'blocked' }),
      receipt('warned', { at: T0 - 5 * MINUTE, decision: 'warned' }),
      receipt('old', { at: T0 - 61 * MINUTE, decision: 'stopped' }),
      receipt('edge', { at: T0 - 60 * MINUTE, decision: 'stopped' }),
      receipt('other-rule', { rule: 'gpu', at: T0 - 5 * MINUTE, decision: 'stopped' }),
      receipt('other-account', { account: 'lab', at: T0 - 5 * MINUTE, decision: 'dry_run' }),
    ];
    for (const row of rows) expect(await recordReceipt(database, row)).toBe(true);
    expect(await stopsSince(database, 'main', 'default', T0 - 60 * MINUTE)).toBe(2);
    expect(await stopsSince(database, 'main', 'gpu', T0 - 60 * MINUTE)).toBe(1);
    expect(await stopsSince(database, 'lab', 'default', T0 - 60 * MINUTE)).toBe(1);
    expect(await stopsSince(database, 'main', 'default', T0 - 7 * MINUTE)).toBe(1);
    expect(await stopsSince(database, 'main', 'default', T0)).toBe(0);
  });

  it("seeks the stops' own index: the count does not read the account's other receipts", () => {
    const database = temp.open();
    // The same statement as stopsSince, decisions as literals (what lets SQLite use the partial index).
    const plan = database.sqlite
      .prepare(
        `EXPLAIN QUERY PLAN SELECT count(*) FROM action_receipts
         WHERE account = ? AND rule = ? AND decided_at > ? AND decision IN ('stopped', 'dry_run')`,
      )
      .all('main', 'default', T0) as Array<{ detail: string }>;
    expect(plan.map((step) => step.detail).join('\n')).toContain(
      'USING INDEX action_receipts_stops_idx (account=? AND rule=? AND decided_at>?)',
    );
  });
});
