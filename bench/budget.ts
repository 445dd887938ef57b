/**
 * Budget evaluation of the `large` scenario on the last day of the month: the five budgets of
 * issue 12 as the budget rule reads them each tick, against a raw sum of the month's billing rows
 * per kind and resource (what any figure read from the rows themselves costs), same run.
 *
 *   node --import tsx bench/budget.ts [runs]
 *   PODWARDEN_BENCH_DB=month-end.db node --import tsx bench/budget.ts   # reuse a collected month
 */
import { performance } from 'node:perf_hooks';
import { upsertBillingRecords } from '../src/db/billing.js';
import { budgetStatus } from '../src/tick/budget-status.js';
import { MONTH_END_MS, monthEndSetup } from './month-end.js';
import { fmt, printResult } from './support.js';

const RUNS = Number(process.argv[2] ?? 20);
const setup = await monthEndSetup({ budgets: true });
const { db, config } = setup;

const monthStart = Date.UTC(2026, 10, 1);
const rawSum = db.sqlite.prepare(
  `SELECT kind, resource_id, total(total_amount) FROM billing_records
   WHERE account = 'bench' AND start_time >= ? GROUP BY kind, resource_id`,
);
const rows = (db.sqlite.prepare('SELECT count(*) FROM billing_records WHERE start_time >= ?').pluck().get(monthStart) ??
  0) as number;

/** Median time of `run`; a run that returns a number has timed itself (what it did before is not counted). */
async function median(run: () => unknown): Promise<number> {
  await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const own = await run();
    times.push(typeof own === 'number' ? own : performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)] as number;
}

const perBudget: Array<{ name: string; ms: number }> = [];
for (const budget of config.budgets) {
  perBudget.push({
    name: budget.name,
    ms: await median(() => budgetStatus(db, { ...config, budgets: [budget] }, MONTH_END_MS)),
  });
}
const statuses = budgetStatus(db, config, MONTH_END_MS);
const tickMs = await median(() => budgetStatus(db, config, MONTH_END_MS));
// The tick after the billing collector stored something (one corrected bucket of the account
// route, a real write): whatever the rule keeps between ticks must be read again.
let landed = 0;
const afterBillingMs = await median(async () => {
  landed += 1;
  const startTime = MONTH_END_MS - 3_600_000;
  const totalAmount = 100 + landed / 1000;
  await upsertBillingRecords(
    db,
    'bench',
    [
      {
        kind: 'account',
        resourceId: '',
        bucketSize: 'hour',
        startTime,
        endTime: startTime + 3_600_000,
        totalAmount,
        amounts: { totalAmount },
      },
    ],
    MONTH_END_MS,
  );
  const t = performance.now();
  budgetStatus(db, config, MONTH_END_MS);
  return performance.now() - t;
});
const rawMs = await median(() => rawSum.raw().all(monthStart));

console.log(`large scenario, ${new Date(MONTH_END_MS).toISOString()}: ${fmt(rows)} billing rows this month`);
for (const { name, ms } of perBudget) {
  const status = statuses.find((s) => s.budget === name);
  console.log(`  ${name.padEnd(18)} ${fmt(ms, 1).padStart(8)} ms   actual ${fmt(status?.actual ?? 0, 2)} USD`);
}
console.log(`  five budgets, one tick:          ${fmt(tickMs, 1)} ms (median of ${RUNS})`);
console.log(`  the same after billing landed:   ${fmt(afterBillingMs, 1)} ms`);
console.log(`  raw sum of the month's rows:     ${fmt(rawMs, 1)} ms`);
console.log(
  `  ratio tick / raw sum: ${fmt(tickMs / rawMs, 3)}×; after billing landed / raw sum: ${fmt(afterBillingMs / rawMs, 3)}×`,
);
printResult('budget', { tickMs, afterBillingMs, rawMs, runs: RUNS });
await setup.close();
