/**
 * Idle evaluation for the `large` scenario's shape: 2,000 Pods (200 of them in 25 clusters), up
 * to 8 GPUs each, one sample per Pod per minute, generated straight into the database. Times
 * one evaluation tick in the steady state (a new minute of samples has landed through the Pod
 * collector's store, then the idle evaluator runs in dry run: window, verdicts, ladder,
 * findings) with 1 day and then with 14 days of stored history: the cost must follow what
 * landed, not the history. Baseline, measured in the same run on the same database: reading the
 * rule's window (32 minutes, 64,000 rows) as one object per row, which is what a tick did before
 * its first rule ran.
 *
 * The tick's CPU time (process.cpuUsage, this process's threads) is printed beside its wall
 * time: on a machine shared with other work it waits less on the others' load.
 *
 * The tick reads its snapshot as the daemon does (src/tick/run.ts), and the waste rule's
 * stuck-starting check is timed after the tick on the tick's snapshot, as the daemon runs it.
 *
 *   node --import tsx bench/idle.ts            # 1 and 14 days (about 40 M samples, a few GB)
 *   node --import tsx bench/idle.ts 1 3        # other history lengths, in days
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runIdleLadder } from '../src/actions/idle-evaluator.js';
import { VirtualClock } from '../src/clock.js';
import { defaultConfig } from '../src/config/load.js';
import type { Config } from '../src/config/schema.js';
import { finishRun, startRun } from '../src/db/collector-runs.js';
import { type Database, openDatabase } from '../src/db/open.js';
import { type PodInput, type PodSampleInput, storePodPoll, syncPods } from '../src/db/pods.js';
import { idleSamplesFrom } from '../src/db/sample-horizon.js';
import type { AccountSnapshot } from '../src/db/snapshot.js';
import { EventBus } from '../src/events.js';
import { silentLogger } from '../src/log.js';
import { BARE_COMMAND_LINE } from '../src/messages/commands.js';
import type { Finding } from '../src/rules/finding.js';
import { stuckPodFindings } from '../src/rules/waste-stuck.js';
import type { EvaluationContext, EvaluationEvents } from '../src/tick/context.js';
import { readSnapshots } from '../src/tick/run.js';
import { fmt, printResult, windowSampleObjects } from './support.js';

const PODS = 2_000;
const CLUSTERS = 25;
const CLUSTER_PODS = 200;
const MINUTE = 60_000;
const DAY = 1_440 * MINUTE;
const ACCOUNT = 'bench';
const NOW = Date.parse('2026-12-01T00:00:30Z');
const days = process.argv.slice(2).map(Number);
const histories = (days.length > 0 ? days : [1, 14]).sort((a, b) => a - b);

const dir = mkdtempSync(join(tmpdir(), 'podwarden-bench-idle-'));
const log = silentLogger();

// Workload mix: busy, idle, held-idle (model loaded), training with a 5-minute dip every hour.
const kinds = ['busy', 'busy', 'busy', 'busy', 'busy', 'busy', 'idle', 'idle', 'held', 'dip'] as const;
const pods: PodInput[] = Array.from({ length: PODS }, (_, i) => ({
  podId: `pod-${String(i).padStart(4, '0')}`,
  name: `${kinds[i % kinds.length]}-${i}`,
  status: 'RUNNING',
  costPerHr: 0.69 * (1 + (i % 8)),
  gpuTypeId: 'NVIDIA H100 80GB HBM3',
  gpuCount: 1 + (i % 8),
  cpuTypeId: null,
  cloud: 'SECURE',
  dataCenterId: 'US-KS-2',
  clusterId: i < CLUSTER_PODS ? `cl-${i % CLUSTERS}` : null,
  clusterRole: null,
  volumeGb: 50,
  networkVolumeId: null,
  env: {},
  actions: ['stop', 'restart', 'terminate'],
  locked: 0,
  createdAt: NOW - 30 * DAY,
  startedAt: NOW - 30 * DAY,
}));

/** A database holding `days` of one-minute samples of every Pod up to NOW, time-major as the collector writes. */
async function historyDatabase(days: number): Promise<{ config: Config; db: Database; rows: number; fillMs: number }> {
  const config = defaultConfig([{ name: ACCOUNT, apiKey: 'bench-key' }]);
  config.database.path = join(dir, `idle-${days}d.db`);
  const db = openDatabase(config.database.path);
  const started = performance.now();
  await syncPods(db, ACCOUNT, pods, NOW);
  db.sqlite.exec('CREATE TEMP TABLE bench_pods (pod_id TEXT, kind TEXT, busy_json TEXT, idle_json TEXT)');
  const addPod = db.sqlite.prepare('INSERT INTO bench_pods VALUES (?, ?, ?, ?)');
  pods.forEach((pod, i) => {
    const gpus = pod.gpuCount ?? 1;
    addPod.run(
      pod.podId,
      kinds[i % kinds.length],
      JSON.stringify(Array(gpus).fill(95)),
      JSON.stringify(Array(gpus).fill(0)),
    );
  });
  const fillHour = db.sqlite.prepare(`
    WITH RECURSIVE m(t) AS (SELECT @from UNION ALL SELECT t + ${MINUTE} FROM m WHERE t + ${MINUTE} < @to)
    INSERT INTO pod_samples (account, pod_id, observed_at, known, uptime_s, gpu_util, gpu_memory_util,
      max_gpu_util, max_gpu_memory_util, cpu_util, memory_util)
    SELECT '${ACCOUNT}', pod_id, t, 1, (t - @started) / 1000,
      CASE WHEN quiet THEN idle_json ELSE busy_json END, CASE WHEN kind = 'idle' THEN idle_json ELSE busy_json END,
      CASE WHEN quiet THEN 0 ELSE 95 END, CASE WHEN kind = 'idle' THEN 0 ELSE 60 END, 20, 30
    FROM (SELECT t, p.*, (p.kind IN ('idle', 'held') OR (p.kind = 'dip' AND (t / ${MINUTE}) % 60 >= 55)) AS quiet
          FROM m CROSS JOIN bench_pods p)`);
  // The newest sample is at NOW - 30 s, as if the Pod collector ran at the minute. The minutes the
  // idle rules read (and one more) land through the Pod collector's store, which keeps what it
  // writes beside the samples (peaks, ends, tails); the history before them is generated here.
  const landed = NOW - MINUTE / 2 - Math.ceil((NOW - idleSamplesFrom(config, NOW)) / MINUTE + 1) * MINUTE;
  for (let hourStart = NOW - MINUTE / 2 - days * DAY; hourStart < landed; hourStart += 60 * MINUTE) {
    db.transaction(() =>
      fillHour.run({ from: hourStart, to: Math.min(landed, hourStart + 60 * MINUTE), started: NOW - 30 * DAY }),
    );
  }
  for (let at = landed; at < NOW; at += MINUTE) await landMinute(config, db, at);
  const run = await startRun(db, { account: ACCOUNT, collector: 'pods', startedAt: NOW - MINUTE / 2 });
  await finishRun(db, run, { endedAt: NOW - MINUTE / 2 + 2_000, outcome: 'ok', rows: PODS });
  db.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  const rows = (db.sqlite.prepare('SELECT count(*) AS n FROM pod_samples').get() as { n: number }).n;
  return { config, db, rows, fillMs: performance.now() - started };
}

async function evaluation(
  config: Config,
  db: Database,
  now: number,
): Promise<{ ms: number; findings: Finding[]; snapshot: AccountSnapshot | undefined }> {
  const started = performance.now();
  const ctx: EvaluationContext = {
    config,
    db,
    clock: new VirtualClock(now),
    now,
    log,
    signal: new AbortController().signal,
    apis: new Map(),
    events: new EventBus<EvaluationEvents>(),
    commandLine: BARE_COMMAND_LINE,
    snapshots: await readSnapshots(db, { config }, now),
    budgets: { billedSince: new Map(), spend: new Map(), resources: new Map() },
    findings: [],
    unjudged: [],
  };
  await runIdleLadder(ctx);
  return { ms: performance.now() - started, findings: ctx.findings, snapshot: ctx.snapshots.get(ACCOUNT) };
}

/** One poll of every Pod at `at`, stored as the Pod collector stores it (busy Pods busy, and so on). */
async function landMinute(config: Config, db: Database, at: number): Promise<void> {
  const samples: PodSampleInput[] = pods.map((pod, i) => {
    const gpus = pod.gpuCount ?? 1;
    const kind = kinds[i % kinds.length];
    const quiet = kind === 'idle' || kind === 'held' || (kind === 'dip' && Math.floor(at / MINUTE) % 60 >= 55);
    return {
      podId: pod.podId,
      observedAt: at,
      state: 'known',
      uptimeS: Math.floor((at - (NOW - 30 * DAY)) / 1000),
      gpuUtil: Array(gpus).fill(quiet ? 0 : 95),
      gpuMemoryUtil: Array(gpus).fill(kind === 'idle' ? 0 : 60),
      cpuUtil: 20,
      memoryUtil: 30,
    };
  });
  const run = await startRun(db, { account: ACCOUNT, collector: 'pods', startedAt: at });
  await storePodPoll(db, {
    account: ACCOUNT,
    pods,
    unreadable: { ids: [], anonymous: false },
    samples,
    now: at,
    tailFrom: idleSamplesFrom(config, at),
  });
  await finishRun(db, run, { endedAt: at + 2_000, outcome: 'ok', rows: samples.length });
}

async function windowReadMs(db: Database, now: number): Promise<number> {
  const started = performance.now();
  windowSampleObjects(db, ACCOUNT, now - 32 * MINUTE, now);
  return performance.now() - started;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const CYCLES = 21;
process.stdout.write(
  `idle evaluation, ${fmt(PODS)} Pods (${CLUSTER_PODS} in ${CLUSTERS} clusters), one-minute samples\n`,
);
const setups = [];
for (const days of histories) setups.push({ days, ...(await historyDatabase(days)) });
const measured = [];
for (const setup of setups) {
  // The first tick loads the window and opens an episode (notify, warn: receipts) for every idle Pod.
  const first = await evaluation(setup.config, setup.db, NOW);
  measured.push({
    ...setup,
    first,
    cycles: [] as number[],
    cpu: [] as number[],
    stuck: [] as number[],
    reads: [] as number[],
    findings: first.findings.length,
  });
}
// Interleaved, so the machine's other load weighs on every history alike. Each cycle is the
// next minute: its samples land (not timed), then the tick runs half a minute later.
for (let i = 1; i <= CYCLES; i++) {
  const now = NOW + i * MINUTE;
  for (const m of measured) {
    await landMinute(m.config, m.db, now - MINUTE / 2);
    const cpu = process.cpuUsage();
    const result = await evaluation(m.config, m.db, now);
    const used = process.cpuUsage(cpu);
    m.cpu.push((used.user + used.system) / 1000);
    m.cycles.push(result.ms);
    const stuck = performance.now();
    if (result.snapshot) stuckPodFindings(result.snapshot, m.config, now);
    m.stuck.push(performance.now() - stuck);
    m.findings = result.findings.length;
    m.reads.push(await windowReadMs(m.db, now));
  }
}
for (const m of measured) {
  const tick = median(m.cycles);
  const read = median(m.reads);
  process.stdout.write(
    `${String(m.days).padStart(3)} d history: ${fmt(m.rows)} samples (generated in ${fmt(m.fillMs / 1000, 1)} s); ` +
      `tick median ${fmt(tick, 1)} ms (min ${fmt(Math.min(...m.cycles), 1)}; CPU median ${fmt(median(m.cpu), 1)} ms) over ${CYCLES}, ` +
      `first tick ${fmt(m.first.ms, 1)} ms; baseline: window read as objects (64,000 rows) median ${fmt(read, 1)} ms; ` +
      `ratio tick / baseline ${fmt(tick / read, 2)}×; ${m.findings} findings; ` +
      `waste stuck-starting check median ${fmt(median(m.stuck), 1)} ms\n`,
  );
  m.db.close();
}
printResult('idle', {
  ...Object.fromEntries(measured.map((m) => [`tickMs${m.days}d`, median(m.cycles)])),
  // The longest history's tick: the cost must follow what landed, not the history.
  tickMs: median(measured[measured.length - 1]?.cycles ?? []),
  tickCpuMs: median(measured[measured.length - 1]?.cpu ?? []),
  historyDays: measured[measured.length - 1]?.days ?? 0,
});
rmSync(dir, { recursive: true, force: true });
