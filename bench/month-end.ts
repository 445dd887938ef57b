/**
 * The `large` scenario on the last day of its month with every collector run once (billing
 * backfilled from the scenario's start) and the five budgets of issue 12: what bench/budget.ts
 * and bench/metrics.ts measure against.
 */
import { copyFileSync, existsSync } from 'node:fs';
import { collectors } from '../src/collectors/index.js';
import { budgetsSection } from '../src/config/sections/budgets.js';
import { openDatabase } from '../src/db/open.js';
import { packagePath } from '../src/package-root.js';
import { ScaledClock } from '../src/simulator/scaled-clock.js';
import { loadScenario } from '../src/simulator/scenario.js';
import { benchSetup } from './support.js';

/** 2026-11-30T20:00Z: the scenario starts on 2026-11-02, so the month holds 28 days and 20 hours of billing. */
export const MONTH_END_MS = Date.UTC(2026, 10, 30, 20);

export const FIVE_BUDGETS = [
  { name: 'account-month', amount: 5_000_000 },
  { name: 'infer-week', scope: 'pods', namePattern: 'infer-*', period: 'week', amount: 500_000 },
  { name: 'serverless-month', scope: 'serverless', amount: 1_000_000 },
  { name: 'volumes-week', scope: 'network_volumes', period: 'week', amount: 100_000 },
  { name: 'pods-month', scope: 'pods', amount: 3_000_000 },
];

export async function monthEndSetup(options: { budgets: boolean }) {
  const scenario = { ...loadScenario(packagePath('config/scenarios/large.json')), rateLimit: undefined, faults: [] };
  const clock = new ScaledClock({ startMs: MONTH_END_MS, speed: 1 });
  const setup = await benchSetup(scenario, clock);
  setup.config.collectors.billing.backfillMs = MONTH_END_MS - scenario.startMs;
  setup.config.budgets = options.budgets ? budgetsSection.parse(FIVE_BUDGETS) : [];
  // Collecting a month of `large` takes minutes: PODWARDEN_BENCH_DB names a database collected
  // before (a copy is opened and migrated), so the same data serves several runs and both trees;
  // if it does not exist yet, the month collected now is written there.
  const reuse = process.env.PODWARDEN_BENCH_DB;
  if (reuse && existsSync(reuse)) {
    setup.db.close();
    copyFileSync(reuse, setup.config.database.path);
    const db = openDatabase(setup.config.database.path);
    return {
      ...setup,
      db,
      clock,
      async close() {
        await setup.api.close();
        db.close();
        await setup.sim.close();
      },
    };
  }
  for (const collector of collectors.values()) await collector.collect(setup.context());
  // Kept where PODWARDEN_BENCH_DB names it, so the next run reuses it (the bench's own directory goes at exit).
  if (reuse) setup.db.sqlite.prepare('VACUUM INTO ?').run(reuse);
  return { ...setup, clock };
}
