/**
 * The 30-day billing backfill of the `large` scenario: rows per second through the daemon's code
 * (the billing collector: HTTP, parsing, storing) against a raw better-sqlite3 prepared insert of
 * the same rows in one transaction, measured in the same run, and the daemon's peak RSS.
 *
 * Three processes, so each figure is the daemon's own: the simulator runs in one
 * (sim-process.ts), the backfill in another that holds only the daemon's side and reports its
 * process.resourceUsage().maxRSS, and this one reads the stored rows back for the raw inserts.
 *
 *   node --import tsx bench/backfill.ts [days]
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import Sqlite from 'better-sqlite3';
import { billingCollector } from '../src/collectors/billing.js';
import { openDatabase } from '../src/db/open.js';
import { applyMemoryPolicy, type MemoryPolicy } from '../src/memory-policy.js';
import { packagePath } from '../src/package-root.js';
import { ScaledClock } from '../src/simulator/scaled-clock.js';
import { loadScenario } from '../src/simulator/scenario.js';
import { startSimProcess } from './sim-process.js';
import { benchDir, daemonSide, fmt } from './support.js';

/** Days of history backfilled: 30 unless given (a shorter one to profile: `bench/backfill.ts 3`). */
const BACKFILL_DAYS = Number(process.argv.find((arg) => /^\d+$/.test(arg)) ?? 30);
const BACKFILL_MS = BACKFILL_DAYS * 86_400_000;

interface DaemonArgs {
  restBaseUrl: string;
  graphqlUrl: string;
  apiKey: string;
  startMs: number;
  dbPath: string;
}

interface DaemonResult {
  collectorMs: number;
  requests: number;
  maxRssKb: number;
  /** RSS with the daemon's modules loaded (and tsx, which the built daemon does not carry), before the backfill. */
  startRssBytes: number;
  /** process.memoryUsage() at the highest RSS sampled (every 100 ms), to say where the peak lies. */
  atPeak: NodeJS.MemoryUsage;
  /** CPU of the daemon's process during the backfill (user + system), ms: on a loaded machine, steadier than wall time. */
  cpuMs: number;
  /** What `podwarden run` applies at start, applied here too so the peak is the daemon's. */
  memory: MemoryPolicy;
}

if (process.argv.includes('--daemon')) {
  process.once('message', async (args: DaemonArgs) => {
    const memory = applyMemoryPolicy();
    let requests = 0;
    const startRssBytes = process.memoryUsage.rss();
    const side = daemonSide(args, new ScaledClock({ startMs: args.startMs, speed: 1 }), args.dbPath, () => {
      requests++;
    });
    side.config.collectors.billing.backfillMs = BACKFILL_MS;
    let atPeak = process.memoryUsage();
    const sampler = setInterval(() => {
      const usage = process.memoryUsage();
      if (usage.rss > atPeak.rss) atPeak = usage;
    }, 100);
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    await billingCollector.collect(side.context());
    const collectorMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    clearInterval(sampler);
    await side.close();
    const result: DaemonResult = {
      collectorMs,
      requests,
      maxRssKb: process.resourceUsage().maxRSS,
      startRssBytes,
      atPeak,
      cpuMs: (cpu.user + cpu.system) / 1000,
      memory,
    };
    process.send?.(result, () => process.disconnect());
  });
} else {
  const scenarioStartMs = loadScenario(packagePath('config/scenarios/large.json')).startMs;
  const clock = new ScaledClock({ startMs: scenarioStartMs + 30 * 86_400_000, speed: 1 });
  const sim = await startSimProcess({ scenarioFile: 'large.json', startMs: clock.now(), faults: [] });
  const dir = benchDir();
  const dbPath = join(dir, 'daemon.db');

  // The parent's node flags (`--import tsx`, and `--cpu-prof` to profile the daemon's side).
  const daemon = fork(fileURLToPath(import.meta.url), ['--daemon', String(BACKFILL_DAYS)], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const result = await new Promise<DaemonResult>((resolve, reject) => {
    daemon.once('message', (message) => resolve(message as DaemonResult));
    daemon.once('exit', (code) => reject(new Error(`backfill process exited (${code}) without a result`)));
    daemon.once('spawn', () => daemon.send({ ...sim, startMs: clock.now(), dbPath } satisfies DaemonArgs));
  });
  await sim.close();

  // The same rows, read back from the daemon's database, inserted raw into a fresh one of the same schema.
  const stored = new Sqlite(dbPath, { readonly: true });
  const rows = stored
    .prepare(
      'SELECT kind, resource_id, bucket_size, start_time, end_time, total_amount, amounts, fetched_at FROM billing_records',
    )
    .raw()
    .all() as unknown[][];
  stored.close();
  const raw = openDatabase(join(dir, 'raw.db'));
  const insert = raw.sqlite.prepare(
    `INSERT INTO billing_records (account, kind, resource_id, bucket_size, start_time, end_time, total_amount, amounts, fetched_at)
     VALUES ('bench', ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const t2 = performance.now();
  raw.sqlite.transaction(() => {
    for (const row of rows) insert.run(row);
  })();
  const rawMs = performance.now() - t2;
  raw.close();

  const n = rows.length;
  console.log(
    `${BACKFILL_DAYS}-day hourly backfill of the large scenario: ${fmt(n)} billing rows, ${fmt(result.requests)} requests`,
  );
  console.log(
    `  billing collector (HTTP + parse + store): ${fmt(result.collectorMs)} ms = ${fmt(n / (result.collectorMs / 1000))} rows/s (CPU ${fmt(result.cpuMs)} ms)`,
  );
  console.log(`  raw prepared insert, one transaction:     ${fmt(rawMs)} ms = ${fmt(n / (rawMs / 1000))} rows/s`);
  console.log(`  end to end, rows/s against raw: ${fmt(rawMs / result.collectorMs, 2)}× (target ≥ 0.7×)`);
  console.log(
    `  peak RSS of the daemon's process (backfill included): ${fmt(result.maxRssKb / 1024)} MB (target ≤ 200 MB); before the backfill ${fmt(result.startRssBytes / 1048576)} MB`,
  );
  const { heapGrowingPercent, setBy, heapLimitMb } = result.memory;
  console.log(
    `  daemon's memory policy: heap limit ${fmt(heapLimitMb)} MB, heap growth between full collections ${heapGrowingPercent === null ? "V8's own" : `${heapGrowingPercent}%`} (${setBy})`,
  );
  const mb = (bytes: number) => `${fmt(bytes / 1048576)} MB`;
  const { rss, heapUsed, heapTotal, external } = result.atPeak;
  console.log(
    `  at the highest RSS sampled (${mb(rss)}): JS heap ${mb(heapUsed)} used of ${mb(heapTotal)}, external ${mb(external)}`,
  );
}
