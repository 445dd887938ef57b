/**
 * The 30-day billing backfill of the `large` scenario: rows per second through our code (the
 * billing collector: HTTP, parsing, storing) and through our store alone, against a raw
 * better-sqlite3 prepared insert of the same rows in one transaction, measured in the same run.
 *
 * Also prints the process's peak RSS (process.resourceUsage().maxRSS), the backfill included.
 *
 *   node --import tsx bench/backfill.ts
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { billingCollector } from '../src/collectors/billing.js';
import { type BillingRecordInput, upsertBillingRecords } from '../src/db/billing.js';
import { openDatabase } from '../src/db/open.js';
import { packagePath } from '../src/package-root.js';
import { ScaledClock } from '../src/simulator/scaled-clock.js';
import { loadScenario } from '../src/simulator/scenario.js';
import { benchSetup, fmt } from './support.js';

const scenario = { ...loadScenario(packagePath('config/scenarios/large.json')), rateLimit: undefined, faults: [] };
const clock = new ScaledClock({ startMs: scenario.startMs + 30 * 86_400_000, speed: 1 });
const setup = await benchSetup(scenario, clock);
setup.config.collectors.billing.backfillMs = 30 * 86_400_000;

const t0 = performance.now();
await billingCollector.collect(setup.context());
const collectorMs = performance.now() - t0;

type Row = {
  kind: string;
  resource_id: string;
  bucket_size: string;
  start_time: number;
  end_time: number;
  total_amount: number;
  amounts: string;
};
const stored = setup.db.sqlite
  .prepare('SELECT kind, resource_id, bucket_size, start_time, end_time, total_amount, amounts FROM billing_records')
  .all() as Row[];
const records: BillingRecordInput[] = stored.map((r) => ({
  kind: r.kind as BillingRecordInput['kind'],
  resourceId: r.resource_id,
  bucketSize: r.bucket_size as BillingRecordInput['bucketSize'],
  startTime: r.start_time,
  endTime: r.end_time,
  totalAmount: r.total_amount,
  amounts: JSON.parse(r.amounts) as Record<string, number>,
}));

// Our store into a fresh database.
const ours = openDatabase(join(setup.dir, 'ours.db'));
const t1 = performance.now();
upsertBillingRecords(ours, 'bench', records, clock.now());
const oursMs = performance.now() - t1;
ours.close();

// A raw prepared insert of the same rows, one transaction, into a fresh database of the same schema.
const raw = openDatabase(join(setup.dir, 'raw.db'));
const insert = raw.sqlite.prepare(
  `INSERT INTO billing_records (account, kind, resource_id, bucket_size, start_time, end_time, total_amount, amounts, fetched_at)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
);
const t2 = performance.now();
raw.sqlite.transaction(() => {
  for (const r of records) {
    insert.run(
      'bench',
      r.kind,
      r.resourceId,
      r.bucketSize,
      r.startTime,
      r.endTime,
      r.totalAmount,
      JSON.stringify(r.amounts),
      clock.now(),
    );
  }
})();
const rawMs = performance.now() - t2;
raw.close();

const n = records.length;
console.log(
  `30-day hourly backfill of the large scenario: ${fmt(n)} billing rows, ${fmt(setup.sim.requestLog.counts().total)} requests`,
);
console.log(
  `  billing collector (HTTP + parse + store): ${fmt(collectorMs)} ms = ${fmt(n / (collectorMs / 1000))} rows/s`,
);
console.log(`  our store alone (upsertBillingRecords):   ${fmt(oursMs)} ms = ${fmt(n / (oursMs / 1000))} rows/s`);
console.log(`  raw prepared insert, one transaction:     ${fmt(rawMs)} ms = ${fmt(n / (rawMs / 1000))} rows/s`);
console.log(`  ratio store / raw: ${fmt(oursMs / rawMs, 2)}×`);
console.log(`  end to end, rows/s against raw: ${fmt(rawMs / collectorMs, 2)}× (target ≥ 0.7×)`);
console.log(`  peak RSS of this process: ${fmt(process.resourceUsage().maxRSS / 1024)} MB (target ≤ 200 MB)`);
await setup.close();
