/**
 * How big the database of the `large` scenario grows. Replays a few hours of `large` through the
 * daemon (virtual time), measures each table's rows and bytes (SQLite's dbstat), and projects
 * 30 days under the default retention (raw samples 14 days, then 5-minute and hourly rollups).
 *
 *   node --import tsx bench/db-size.ts [HOURS]      (default 2)
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../src/db/open.js';
import { silentLogger } from '../src/log.js';
import { packagePath } from '../src/package-root.js';
import { replay } from '../src/replay/replay.js';
import { loadScenario } from '../src/simulator/scenario.js';
import { benchDir, fmt } from './support.js';

const hours = Number(process.argv[2] ?? 2);
const scenario = { ...loadScenario(packagePath('config/scenarios/large.json')), rateLimit: undefined, faults: [] };
const dbPath = join(benchDir(), 'large.db');
const report = await replay({ scenario, durationMs: hours * 3_600_000, dbPath, log: silentLogger() });
console.log(`replayed ${hours} h of large in ${fmt(report.wallMs / 1000, 1)} s: ${fmt(report.api.requests)} requests`);

const db = openDatabase(dbPath);
db.sqlite.pragma('wal_checkpoint(TRUNCATE)');
const tables = db.sqlite
  .prepare(
    `SELECT name, SUM(pgsize) AS bytes FROM dbstat
     WHERE name NOT LIKE 'sqlite_%' GROUP BY name ORDER BY bytes DESC`,
  )
  .all() as Array<{ name: string; bytes: number }>;
const rows = (table: string): number =>
  (db.sqlite.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n;
console.log(`file: ${fmt(statSync(dbPath).size / 1e6, 1)} MB`);
console.log('table/index                          rows          bytes');
for (const t of tables.slice(0, 14)) {
  let count = '';
  try {
    count = fmt(rows(t.name));
  } catch {
    count = '(index)';
  }
  console.log(`${t.name.padEnd(34)} ${count.padStart(10)} ${fmt(t.bytes).padStart(14)}`);
}

// Projection: samples dominate. Bytes per raw sample include its primary-key b-tree.
const sampleRows = rows('pod_samples');
const sampleBytes = tables
  .filter((t) => t.name.startsWith('pod_samples') && !t.name.includes('_5m') && !t.name.includes('_1h'))
  .reduce((sum, t) => sum + t.bytes, 0);
const perSample = sampleBytes / Math.max(1, sampleRows);
const podsSampled = sampleRows / (hours * 60);
const raw14d = podsSampled * 60 * 24 * 14;
// A rollup row holds about as much as a raw sample (counts, avg/max of four figures).
const rollups = podsSampled * (16 * 24 * 12 + 16 * 24);
const billingBytes = tables.filter((t) => t.name.startsWith('billing_records')).reduce((s, t) => s + t.bytes, 0);
const billingPerHour = billingBytes / (hours + 24 * 32); // backfill (32 days) + replayed hours, hourly buckets
const projected = raw14d * perSample + rollups * perSample + billingPerHour * 24 * 62;
console.log(`\n${fmt(podsSampled)} Pods sampled per minute, ${fmt(perSample, 1)} bytes per raw sample (row + key)`);
console.log(
  `projection for 30 days: raw samples ${fmt((raw14d * perSample) / 1e9, 2)} GB (14 days kept) + rollups ${fmt((rollups * perSample) / 1e9, 2)} GB + billing ${fmt((billingPerHour * 24 * 62) / 1e9, 2)} GB ≈ ${fmt(projected / 1e9, 2)} GB`,
);
db.close();
