/**
 * How big the database of the `large` scenario grows, counting every byte of the file. Replays a
 * few hours of `large` through the daemon (virtual time, the real write paths), then measures a
 * compacted copy with SQLite's dbstat: bytes per row of each table INCLUDING all its indexes (the
 * automatic ones of primary keys too), and checks that the tables add up to the file. Rollup rows
 * are measured the same way, by running the retention pass on a second copy with no raw
 * retention. Then projects 30 days of running under the default retention of the code under test.
 *
 *   node --import tsx bench/db-size.ts [HOURS]            (default 2: replay, then measure)
 *   node --import tsx bench/db-size.ts --db FILE          (measure a database replayed earlier)
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { defaultConfig } from '../src/config/load.js';
import { openDatabase } from '../src/db/open.js';
import { applyRetention } from '../src/db/retention.js';
import { silentLogger } from '../src/log.js';
import { packagePath } from '../src/package-root.js';
import { replay } from '../src/replay/replay.js';
import { loadScenario } from '../src/simulator/scenario.js';
import { type FileSize, measureFile, rowsBetween, type TableSize, timeSpan } from './file-size.js';
import { benchDir, fmt, printResult } from './support.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const PROJECTED_DAYS = 30;
// Kept: the replayed database is printed for --db (the copies are removed below).
const dir = benchDir({ keep: true });
// The default retention of the code under test (keys of this and earlier versions).
const retention = defaultConfig([{ name: 'bench', apiKey: 'unused' }]).database.retention as Record<string, number>;

let source: string;
if (process.argv[2] === '--db') {
  source = process.argv[3] ?? '';
  if (!source) throw new Error('bench:db-size --db needs the path of a replayed database');
} else {
  const hours = Number(process.argv[2] ?? 2);
  const scenario = { ...loadScenario(packagePath('config/scenarios/large.json')), rateLimit: undefined, faults: [] };
  source = join(dir, 'large.db');
  const report = await replay({ scenario, durationMs: hours * HOUR, dbPath: source, log: silentLogger() });
  console.log(
    `replayed ${hours} h of large in ${fmt(report.wallMs / 1000, 1)} s: ${fmt(report.api.requests)} requests`,
  );
}

/** A compact copy (VACUUM INTO): free pages and the WAL would otherwise blur bytes per row. */
function compactCopy(from: string, name: string): string {
  const to = join(dir, name);
  const sqlite = new BetterSqlite3(from, { readonly: true });
  sqlite.prepare('VACUUM INTO ?').run(to);
  sqlite.close();
  return to;
}

function measure(path: string): FileSize {
  const sqlite = new BetterSqlite3(path, { readonly: true });
  try {
    return measureFile(sqlite);
  } finally {
    sqlite.close();
  }
}

const rawCopy = compactCopy(source, 'raw.db');
const raw = measure(rawCopy);
const probe = new BetterSqlite3(rawCopy, { readonly: true });
const samples = timeSpan(probe, 'pod_samples', 'observed_at');
if (samples.first === null || samples.last === null) throw new Error(`${source}: pod_samples is empty`);
const start = samples.first;
const now = samples.last + 1;
const spanDays = (now - start) / DAY;
const billing = timeSpan(probe, 'billing_records', 'start_time');
const billingDays = billing.first === null ? spanDays : (now - billing.first) / DAY;
// Change-only history: the rows of the first poll are the state, what came after is growth.
const changesSinceFirst = (table: string) =>
  rowsBetween(probe, table, 'since_at', (timeSpan(probe, table, 'since_at').first ?? now) + 1, now);
const historyGrowth = {
  gpu_availability: changesSinceFirst('gpu_availability'),
  gpu_stock: changesSinceFirst('gpu_stock'),
};
probe.close();

// The retention pass of the code under test, with no raw retention: every whole hour is rolled.
const rolledCopy = compactCopy(source, 'rolled-source.db');
const database = openDatabase(rolledCopy);
const forever = 100_000 * DAY;
const rollAll = {
  rawSamplesMs: 0,
  rollupsMs: forever,
  fiveMinuteRollupsMs: forever,
  hourlyRollupsMs: forever,
  usedLinksMs: forever,
  outboxMs: forever,
};
const rolled = await applyRetention(database, rollAll, now);
database.close();
const rolledHours = Math.floor(now / HOUR) - Math.ceil(start / HOUR) + (start % HOUR === 0 ? 0 : 1);
const rollups = measure(compactCopy(rolledCopy, 'rolled.db'));

const rawDays = (retention.rawSamplesMs ?? 0) / DAY;
const fiveMinuteDays = (retention.fiveMinuteRollupsMs ?? retention.rollupsMs ?? 0) / DAY;
const hourlyDays = (retention.hourlyRollupsMs ?? retention.rollupsMs ?? 0) / DAY;
// The daemon applies retention once a day, and SQLite reuses freed pages without
// shrinking the file: the file is as large as the day's peak, just before the pass, when each
// level holds a day more than its retention.
const PASS_DAYS = 1;
const keptRaw = Math.min(PROJECTED_DAYS, rawDays + PASS_DAYS);
// A rollup row is made when its raw samples age out, and kept until its own retention.
const keptRollup = (days: number) => Math.max(0, Math.min(PROJECTED_DAYS, days + PASS_DAYS) - keptRaw);

interface Projection {
  size: TableSize;
  kept: string;
  rows: number;
}

function project(size: TableSize): Projection {
  const perDay = size.rows / spanDays;
  switch (size.table) {
    case 'pod_samples':
    case 'endpoint_worker_samples':
    case 'collector_runs':
      return { size, kept: `${fmt(keptRaw, 1)} d`, rows: perDay * keptRaw };
    case 'pod_samples_5m':
    case 'pod_samples_1h': {
      const days = keptRollup(size.table === 'pod_samples_5m' ? fiveMinuteDays : hourlyDays);
      return { size, kept: `${fmt(days, 1)} d`, rows: (size.rows / rolledHours) * 24 * days };
    }
    case 'billing_records':
    case 'billing_days':
      // Never deleted: the backfilled days plus every day of running.
      return {
        size,
        kept: 'all',
        rows: size.rows * ((billingDays - spanDays + PROJECTED_DAYS) / billingDays),
      };
    case 'gpu_availability':
    case 'gpu_stock':
      return {
        size,
        kept: 'all (changes)',
        rows: size.rows + (historyGrowth[size.table] / spanDays) * (PROJECTED_DAYS - spanDays),
      };
    default:
      return { size, kept: 'as now', rows: size.rows };
  }
}

const byName = new Map(rollups.tables.map((t) => [t.table, t]));
const projections = raw.tables.map((size) =>
  size.table === 'pod_samples_5m' || size.table === 'pod_samples_1h'
    ? project(byName.get(size.table) ?? size)
    : project(size),
);
const bytesPerRow = (s: TableSize) => (s.rows === 0 ? 0 : (s.tableBytes + s.indexBytes) / s.rows);
const projectedBytes = (p: Projection) => p.rows * bytesPerRow(p.size);
projections.sort((a, b) => projectedBytes(b) - projectedBytes(a));

const counted = raw.tables.reduce((sum, t) => sum + t.tableBytes + t.indexBytes, 0);
console.log(
  `measured ${fmt(spanDays * 24, 2)} h of samples (billing spans ${fmt(billingDays, 1)} d); ` +
    `file ${fmt(raw.fileBytes)} bytes = tables and their indexes ${fmt(counted)} + SQLite's own pages ${fmt(raw.otherBytes)}`,
);
console.log(
  `rollup pass: ${fmt(rolled.rolled5m)} 5-minute and ${fmt(rolled.rolled1h)} hourly rows from ${rolledHours} whole hours`,
);
console.log(
  `default retention: raw ${fmt(rawDays, 1)} d, 5-minute ${fmt(fiveMinuteDays, 1)} d, hourly ${fmt(hourlyDays, 1)} d; ` +
    `projected at the daily peak, just before the retention pass (each level holding ${PASS_DAYS} d more)\n`,
);
console.log(
  `${'table'.padEnd(26)}${'rows now'.padStart(11)}${'B/row'.padStart(8)}${'of which idx'.padStart(13)}  ${'kept'.padEnd(14)}${`rows at ${PROJECTED_DAYS} d`.padStart(14)}${'MB'.padStart(10)}`,
);
let total = raw.otherBytes;
for (const p of projections) {
  const bytes = projectedBytes(p);
  total += bytes;
  if (bytes < 50_000 && p.kept === 'as now') continue;
  const perRow = bytesPerRow(p.size);
  const indexShare = p.size.rows === 0 ? 0 : p.size.indexBytes / p.size.rows;
  console.log(
    `${p.size.table.padEnd(26)}${fmt(p.size.rows).padStart(11)}${fmt(perRow, 1).padStart(8)}${fmt(indexShare, 1).padStart(13)}  ${p.kept.padEnd(14)}${fmt(p.rows).padStart(14)}${fmt(bytes / 1e6, 1).padStart(10)}`,
  );
}
console.log(
  `\nprojection for ${PROJECTED_DAYS} days of large under the default retention: ${fmt(total / 1e9, 3)} GB ` +
    `(every table with all its indexes, plus ${fmt(raw.otherBytes / 1e6, 2)} MB of SQLite's own pages)`,
);
// The copies are as large as the database: only the replayed file is left, for --db.
for (const copy of ['raw.db', 'rolled-source.db', 'rolled.db']) rmSync(join(dir, copy), { force: true });
if (process.argv[2] !== '--db') console.log(`replayed database kept for --db: ${source}`);
printResult('db-size', { projectedGb: total / 1e9, days: PROJECTED_DAYS, measuredHours: spanDays * 24 });
