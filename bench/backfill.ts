/**
 * The 30-day billing backfill of the `large` scenario: rows per second through the daemon's code
 * (the billing collector: HTTP, parsing, storing) against a raw better-sqlite3 prepared insert of
 * the same rows in one transaction, measured in the same run, and the daemon's peak RSS.
 *
 * Three processes, so each figure is the daemon's own: the simulator runs in one
 * (sim-process.ts); the daemon as shipped, built (`npm run build`) and run by plain node as
 * `node dist/main.js collect billing --clock-start …`, in another, which reports its own
 * process.resourceUsage() through a preloaded usage-at-exit.mjs; and this one reads the stored rows
 * back for the raw inserts. (The daemon's process once ran under tsx, whose loader alone held
 * about 40 MB the shipped daemon does not.)
 *
 *   node --import tsx bench/backfill.ts [days]
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Sqlite from 'better-sqlite3';
import { openDatabase } from '../src/db/open.js';
import { packagePath } from '../src/package-root.js';
import { ScaledClock } from '../src/simulator/scaled-clock.js';
import { loadScenario } from '../src/simulator/scenario.js';
import { startSimProcess } from './sim-process.js';
import { benchDir, fmt, printResult } from './support.js';

/** Days of history backfilled: 30 unless given (a shorter one to profile: `bench/backfill.ts 3`). */
const BACKFILL_DAYS = Number(process.argv.find((arg) => /^\d+$/.test(arg)) ?? 30);

interface DaemonUsage {
  maxRssKb: number;
  /** CPU of the daemon's whole process (user + system), start-up included, ms. */
  cpuMs: number;
  /** process.memoryUsage() at the highest RSS sampled (every 100 ms), to say where the peak lies. */
  atPeak: NodeJS.MemoryUsage;
}

/** The parent's node flags for the daemon (`--cpu-prof` to profile it), less the TypeScript loader it does not need. */
function daemonNodeFlags(): string[] {
  const flags: string[] = [];
  for (let i = 0; i < process.execArgv.length; i++) {
    const flag = process.execArgv[i] as string;
    if (flag === '--import' && process.execArgv[i + 1] === 'tsx') i++;
    else if (flag !== '--import=tsx') flags.push(flag);
  }
  return flags;
}

/** Runs the built daemon's `collect billing` to its end: the collector's own time, from its output line, and the process's usage. */
async function runDaemon(
  args: string[],
  usageFile: string,
): Promise<{ collectorMs: number; usage: DaemonUsage; log: string }> {
  const run = promisify(execFile);
  const { stdout, stderr } = await run(
    process.execPath,
    [
      ...daemonNodeFlags(),
      '--import',
      fileURLToPath(new URL('./usage-at-exit.mjs', import.meta.url)),
      packagePath('dist/main.js'),
      ...args,
    ],
    { env: { ...process.env, PODWARDEN_BENCH_USAGE: usageFile }, maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: { code?: number; stdout?: string; stderr?: string }) => {
    throw new Error(`the daemon's backfill failed (exit ${error.code}):\n${error.stdout ?? ''}${error.stderr ?? ''}`);
  });
  const line = /^bench\tbilling\tok\t\d+ rows\t(\d+) ms$/m.exec(stdout);
  if (!line) throw new Error(`the daemon's backfill did not report an ok billing run:\n${stdout}${stderr}`);
  const usage = JSON.parse(readFileSync(usageFile, 'utf8')) as DaemonUsage;
  return { collectorMs: Number(line[1]), usage, log: stderr };
}

/** The memory policy the daemon logged at start, as it logged it. */
function memoryLine(log: string): string {
  for (const line of log.split('\n')) {
    const msg = /"msg":"(memory: [^"]*)"/.exec(line)?.[1];
    if (msg) return msg;
  }
  return 'memory: not logged';
}

const built = performance.now();
execFileSync('npm', ['run', 'build', '--silent'], { cwd: packagePath(), stdio: 'inherit' });
console.log(`built the daemon (npm run build) in ${fmt(performance.now() - built)} ms`);

const scenarioStartMs = loadScenario(packagePath('config/scenarios/large.json')).startMs;
const clock = new ScaledClock({ startMs: scenarioStartMs + 30 * 86_400_000, speed: 1 });
const sim = await startSimProcess({ scenarioFile: 'large.json', startMs: clock.now(), faults: [] });
const dir = benchDir();
const dbPath = join(dir, 'daemon.db');
const configPath = join(dir, 'podwarden.yaml');
writeFileSync(
  configPath,
  `accounts:\n  - name: bench\n    apiKey: ${sim.apiKey}\n    restBaseUrl: ${sim.restBaseUrl}\n    graphqlBaseUrl: ${sim.graphqlUrl}\n` +
    `database:\n  path: ${dbPath}\ncollectors:\n  billing:\n    backfill: ${BACKFILL_DAYS}d\nlog:\n  format: json\n`,
);
// The daemon's clock reads the simulator's (a moment behind it, as it starts later: never ahead).
const clockStart = new Date(clock.now()).toISOString();
const { collectorMs, usage, log } = await runDaemon(
  ['collect', 'billing', '--config', configPath, '--clock-start', clockStart],
  join(dir, 'usage.json'),
);
const { total: requests } = await sim.requestLog();
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
  `${BACKFILL_DAYS}-day hourly backfill of the large scenario: ${fmt(n)} billing rows, ${fmt(requests)} requests`,
);
console.log(
  `  billing collector (HTTP + parse + store): ${fmt(collectorMs)} ms = ${fmt(n / (collectorMs / 1000))} rows/s (daemon process CPU ${fmt(usage.cpuMs)} ms, start-up included)`,
);
console.log(`  raw prepared insert, one transaction:     ${fmt(rawMs)} ms = ${fmt(n / (rawMs / 1000))} rows/s`);
console.log(`  end to end, rows/s against raw: ${fmt(rawMs / collectorMs, 2)}× (target ≥ 0.7×)`);
console.log(
  `  peak RSS of the daemon's process (backfill included): ${fmt(usage.maxRssKb / 1024)} MB (target ≤ 200 MB), the built daemon run by plain node`,
);
console.log(`  daemon's ${memoryLine(log)}`);
const mb = (bytes: number) => `${fmt(bytes / 1048576)} MB`;
const { rss, heapUsed, heapTotal, external } = usage.atPeak;
console.log(
  `  at the highest RSS sampled (${mb(rss)}): JS heap ${mb(heapUsed)} used of ${mb(heapTotal)}, external ${mb(external)}`,
);
printResult('backfill', {
  days: BACKFILL_DAYS,
  rows: n,
  collectorMs,
  rawMs,
  ratio: rawMs / collectorMs,
  peakRssMb: usage.maxRssKb / 1024,
});
