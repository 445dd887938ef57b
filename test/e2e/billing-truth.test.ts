import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lastSuccessAt } from '../../src/db/collector-runs.js';
import { openDatabase } from '../../src/db/open.js';
import { billingKinds } from '../../src/db/schema.js';
import { parseDuration } from '../../src/duration.js';
import { silentLogger } from '../../src/log.js';
import { packagePath } from '../../src/package-root.js';
import { replay } from '../../src/replay/replay.js';
import { loadScenario } from '../../src/simulator/scenario.js';
import { World } from '../../src/simulator/world.js';
import { type BillingRecord, billingRecordsIn } from '../helpers/billing-reads.js';

const HOUR = 3_600_000;
const dir = mkdtempSync(join(tmpdir(), 'podwarden-e2e-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The whole chain, daemon against simulator in virtual time: a small-team day with its faults
 * (5xx bursts, a malformed billing body, dropped connections, latency), then every stored
 * billing bucket compared with what the simulated account really accrued.
 */
describe('a small-team day, end to end', () => {
  it('stores billing per resource and bucket equal to the ground truth, to the cent', async () => {
    const scenario = loadScenario(packagePath('config/scenarios/small-team.yaml'));
    const dbPath = join(dir, 'day.db');
    const report = await replay({ scenario, durationMs: parseDuration('24h'), dbPath, log: silentLogger() });
    expect(report.api.status5xx).toBeGreaterThan(0);
    expect(report.api.resets).toBeGreaterThan(0);
    expect(report.api.status429).toBe(0);

    const db = openDatabase(dbPath);
    try {
      // Buckets that had ended when the last successful billing run read them are final.
      const lastRead = await lastSuccessAt(db, 'sim', 'billing');
      expect(lastRead).not.toBeNull();
      const settledBefore = Math.floor((lastRead ?? 0) / HOUR) * HOUR;
      const from = scenario.startMs - 2 * 24 * HOUR;
      const records: BillingRecord[] = [];
      for (const kind of billingKinds) {
        records.push(
          ...(await billingRecordsIn(db, { account: 'sim', kind, bucketSize: 'hour', from, to: settledBefore })),
        );
      }
      expect(records.length).toBeGreaterThan(500);

      // The simulator's world is deterministic and the daemon changed nothing in it (no stops
      // yet), so a fresh world gives the same truth.
      const truth = new World(scenario);
      const end = scenario.startMs + 24 * HOUR;
      const mismatches: string[] = [];
      for (const r of records) {
        const kind = r.kind === 'account' ? 'all' : r.kind;
        const expected = truth.accrued(end, {
          kind,
          id: r.resourceId === '' ? undefined : r.resourceId,
          fromMs: r.startTime,
          toMs: r.endTime,
        }).totalAmount;
        if (Math.abs((expected ?? 0) - r.totalAmount) >= 0.005) {
          mismatches.push(
            `${r.kind} ${r.resourceId} ${new Date(r.startTime).toISOString()}: ${r.totalAmount} != ${expected}`,
          );
        }
      }
      expect(mismatches).toEqual([]);

      // Nothing is counted twice: one row per (kind, resource, bucket).
      const keys = new Set(records.map((r) => `${r.kind}/${r.resourceId}/${r.bucketSize}/${r.startTime}`));
      expect(keys.size).toBe(records.length);
    } finally {
      db.close();
    }
  }, 300_000);
});
