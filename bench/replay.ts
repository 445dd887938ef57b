/**
 * `podwarden simulate` in-process: a replayed day of `small-team` and a span of `large` (the
 * whole daemon and the simulator on one virtual clock). Baseline, same run: raw prepared inserts
 * of as many rows as a day of small-team's Pod samples into a fresh SQLite file, in one
 * transaction, a yardstick of what this machine does per second right now (it is shared).
 *
 *   node --import tsx bench/replay.ts                 # small-team 24h, large 2h
 *   node --import tsx bench/replay.ts 24h 24h         # small-team span, large span ('0' skips)
 *
 * Each run also prints its first virtual hour (an account's billing backfill lands in it) apart
 * from the mean of the later, steady hours: a large day is about its first hour plus 23 of those.
 */

import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { resolveScenario } from '../src/cli/scenario-option.js';
import { parseDuration } from '../src/duration.js';
import { silentLogger } from '../src/log.js';
import { replay } from '../src/replay/replay.js';
import { loadScenario } from '../src/simulator/scenario.js';
import { benchDir, fmt, printResult } from './support.js';

const [smallSpan = '24h', largeSpan = '2h'] = process.argv.slice(2);
const BASELINE_ROWS = 300_000;

function baselineMs(): number {
  const db = new Database(join(benchDir(), 'baseline.db'));
  db.pragma('journal_mode = WAL');
  db.exec(
    'CREATE TABLE s (account TEXT, pod_id TEXT, observed_at INTEGER, util REAL, PRIMARY KEY (account, observed_at, pod_id))',
  );
  const insert = db.prepare('INSERT INTO s VALUES (?, ?, ?, ?)');
  const started = performance.now();
  db.transaction(() => {
    for (let i = 0; i < BASELINE_ROWS; i++) insert.run('bench', `pod-${i % 100}`, Math.floor(i / 100) * 60_000, i % 97);
  })();
  const ms = performance.now() - started;
  db.close();
  return ms;
}

async function replayed(name: string, span: string) {
  const scenario = loadScenario(resolveScenario(name));
  // CPU time as well as wall: on a machine shared with other work, wall time mostly measures the
  // neighbours, while the process's own CPU time is what the replay costs.
  const cpuBefore = process.cpuUsage();
  // Each virtual hour's own cost: the first hour of an account carries its billing backfill, and
  // the later (steady) hours are what a longer replay adds per hour.
  const hours: Array<{ wallMs: number; cpuMs: number }> = [];
  let mark = { wall: performance.now(), cpu: process.cpuUsage() };
  const onProgress = () => {
    const cpu = process.cpuUsage(mark.cpu);
    hours.push({ wallMs: performance.now() - mark.wall, cpuMs: (cpu.user + cpu.system) / 1000 });
    mark = { wall: performance.now(), cpu: process.cpuUsage() };
  };
  const report = await replay({ scenario, durationMs: parseDuration(span), log: silentLogger(), onProgress });
  const cpu = process.cpuUsage(cpuBefore);
  const totals = { ms: report.wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
  return { name, span, ...totals, hours, requests: report.api.requests };
}

const base = baselineMs();
const runs = [];
if (smallSpan !== '0') runs.push(await replayed('small-team', smallSpan));
if (largeSpan !== '0') runs.push(await replayed('large', largeSpan));
const baseAfter = baselineMs();
const baseline = (base + baseAfter) / 2;
console.log(
  `baseline: ${fmt(BASELINE_ROWS)} raw prepared inserts, ${fmt(base, 0)} ms before and ${fmt(baseAfter, 0)} ms after`,
);
for (const run of runs) {
  console.log(
    `${run.name} ${run.span}: ${fmt(run.ms / 1000, 1)} s wall, ${fmt(run.cpuMs / 1000, 1)} s CPU, ` +
      `${fmt(run.requests)} requests; ` +
      `ratio to baseline ${fmt(run.ms / baseline, 1)}×`,
  );
  const steady = run.hours.slice(1);
  if (steady.length > 0) {
    const sum = (pick: (hour: (typeof steady)[number]) => number) => steady.reduce((total, h) => total + pick(h), 0);
    // In ms, and the median beside the mean: a steady hour is a few hundred ms, and on a shared
    // machine one hour that met a neighbour's burst moves the mean more than a change does.
    const median = (pick: (hour: (typeof steady)[number]) => number) => {
      const sorted = steady.map(pick).sort((a, b) => a - b);
      return sorted[Math.floor(sorted.length / 2)] ?? 0;
    };
    console.log(
      `  first hour ${fmt((run.hours[0]?.wallMs ?? 0) / 1000, 1)} s wall, ${fmt((run.hours[0]?.cpuMs ?? 0) / 1000, 1)} s CPU; ` +
        `later hours ${fmt(sum((h) => h.wallMs) / steady.length)} ms wall, ` +
        `${fmt(sum((h) => h.cpuMs) / steady.length)} ms CPU each (mean of ${steady.length}; ` +
        `median ${fmt(median((h) => h.wallMs))} ms wall, ${fmt(median((h) => h.cpuMs))} ms CPU)`,
    );
  }
}
printResult('replay', {
  baselineMs: baseline,
  ...Object.fromEntries(
    runs.flatMap((run) => [
      [`${run.name} ${run.span} wallMs`, run.ms],
      [`${run.name} ${run.span} cpuMs`, run.cpuMs],
    ]),
  ),
});
