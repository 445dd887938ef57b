import { readFileSync } from 'node:fs';
import { afterEach, expect } from 'vitest';
import { parse } from 'yaml';
import type { CollectContext, Collector } from '../../src/collectors/collector.js';
import { type RunReport, runCollector } from '../../src/collectors/run.js';
import type { Config } from '../../src/config/schema.js';
import type { BillingKind } from '../../src/db/schema.js';
import { billingKinds } from '../../src/db/schema.js';
import { packagePath } from '../../src/package-root.js';
import type { AccruedFilter } from '../../src/simulator/world.js';
import { billingRecordsIn } from '../helpers/billing-reads.js';
import { ACCOUNT, type Harness, startHarness } from '../helpers/harness.js';

export { billingKinds };
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** A harness per test (with an optional config tune), closed after it. */
export function useTunedHarness(): (
  source: string | Record<string, unknown>,
  tune?: (config: Config) => void,
) => Promise<Harness> {
  const open: Harness[] = [];
  afterEach(async () => {
    for (const harness of open.splice(0)) await harness.close();
  });
  return async (source, tune) => {
    const harness = await startHarness(source, tune);
    open.push(harness);
    return harness;
  };
}

/**
 * The small-team scenario as an object to adjust. Without `rateLimit` the client never paces,
 * so virtual time stands still during a run and a run "at 2h" reads exactly up to 2h.
 */
export function smallTeam(adjust: (scenario: Record<string, unknown>) => void = () => {}): Record<string, unknown> {
  const scenario = parse(readFileSync(packagePath('config/scenarios/small-team.yaml'), 'utf8')) as Record<
    string,
    unknown
  >;
  adjust(scenario);
  return scenario;
}

/** small-team without rate limits and faults: runs take no virtual time. */
export function calmSmallTeam(): Record<string, unknown> {
  return smallTeam((scenario) => {
    delete scenario.rateLimit;
    scenario.faults = [];
  });
}

/**
 * Moves virtual time to `startMs + at` (or leaves it where a previous run's pacing took it) and runs the collector through the real runner (so
 * collector_runs remembers the last success, as in the daemon), driving any backoff.
 */
export async function runAt(
  h: Harness,
  collector: Collector,
  at: number,
  overrides: Partial<Pick<CollectContext, 'api' | 'log' | 'signal'>> = {},
): Promise<RunReport> {
  await h.clock.advanceTo(Math.max(h.clock.now(), h.scenario.startMs + at));
  const base = { ...h.context(), ...overrides, timeoutMs: 10 * 60_000 };
  return h.drive(runCollector(collector, base));
}

/** The simulator's ground-truth kind for each billing route. */
export function truthKind(kind: BillingKind): AccruedFilter['kind'] {
  return kind === 'account' ? 'all' : kind;
}

/** Every billed resource of the scenario, by billing kind ('' for the routes without ids). */
export function resourcesOf(h: Harness, kind: BillingKind): string[] {
  const { scenario } = h;
  switch (kind) {
    case 'pods':
      return scenario.pods.map((pod) => pod.id);
    case 'clusters':
      return scenario.clusters.map((cluster) => cluster.id);
    case 'serverless':
      return scenario.endpoints.map((endpoint) => endpoint.id);
    case 'network_volumes':
      return scenario.volumes.map((volume) => volume.id);
    case 'account':
    case 'endpoints':
      return [''];
  }
}

const HALF_CENT = 0.005;

export async function storedRecords(h: Harness, kind: BillingKind, fromMs: number, toMs: number) {
  return await billingRecordsIn(h.db, { account: ACCOUNT, kind, bucketSize: 'hour', from: fromMs, to: toMs });
}

/**
 * Stored billing equals the simulator's money to the cent, for every kind: each stored bucket of
 * [fromMs, toMs) field by field, and each resource's total over the span (which catches missing
 * buckets). `toMs` is where the last run read up to, on a bucket boundary.
 */
export async function expectBillingMatchesTruth(
  h: Harness,
  fromMs: number,
  toMs: number,
  kinds: readonly BillingKind[] = billingKinds,
): Promise<void> {
  const now = h.clock.now();
  const { world } = h.sim;
  for (const kind of kinds) {
    const records = await storedRecords(h, kind, fromMs, toMs);
    for (const record of records) {
      const truth = world.accrued(now, {
        kind: truthKind(kind),
        id: record.resourceId || undefined,
        fromMs: record.startTime,
        toMs: record.endTime,
      });
      const label = `${kind} ${record.resourceId} ${new Date(record.startTime).toISOString()}`;
      expect(Object.keys(record.amounts).sort(), label).toEqual(Object.keys(truth).sort());
      for (const [field, amount] of Object.entries(truth)) {
        expect(Math.abs((record.amounts[field] ?? Number.NaN) - amount), `${label} ${field}`).toBeLessThan(HALF_CENT);
      }
      expect(record.totalAmount).toBe(record.amounts.totalAmount);
    }
    for (const id of resourcesOf(h, kind)) {
      const truth = world.accrued(now, { kind: truthKind(kind), id: id || undefined, fromMs, toMs }).totalAmount ?? 0;
      const stored = records.filter((record) => record.resourceId === id).reduce((sum, r) => sum + r.totalAmount, 0);
      expect(Math.abs(stored - truth), `${kind} ${id} total`).toBeLessThan(HALF_CENT);
    }
  }
}

/** Row count and total per kind: what a run that changes nothing must leave as it was. */
export function billingFingerprint(h: Harness): Array<{ kind: string; rows: number; total: number }> {
  return h.db.sqlite
    .prepare(
      'SELECT kind, count(*) AS rows, total(total_amount) AS total FROM billing_records GROUP BY kind ORDER BY kind',
    )
    .all() as Array<{ kind: string; rows: number; total: number }>;
}
