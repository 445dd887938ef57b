/**
 * One full collection cycle of the `large` scenario with 50 ms of latency on every request:
 * wall time and request count, against the floor of that many requests at the client's
 * concurrency (requests × 50 ms / concurrency). The simulator runs in a process of its own
 * (sim-process.ts), as RunPod does: its work does not hold the daemon's event loop.
 *
 *   node --import tsx bench/collect-cycle.ts [--profile <file.cpuprofile>]
 *
 * `--profile` writes a CPU profile of the measured cycle alone (not the warm-up, not module loading).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { collectors } from '../src/collectors/index.js';
import { packagePath } from '../src/package-root.js';
import { ScaledClock } from '../src/simulator/scaled-clock.js';
import { loadScenario } from '../src/simulator/scenario.js';
import { startSimProcess } from './sim-process.js';
import { benchDir, daemonSide, fmt, printResult } from './support.js';

const LATENCY_MS = 50;
const base = loadScenario(packagePath('config/scenarios/large.json'));
const faults = [
  {
    fromMs: base.startMs - 86_400_000,
    toMs: base.startMs + 30 * 86_400_000,
    match: '/',
    kind: 'latency' as const,
    ms: LATENCY_MS,
  },
];
const clock = new ScaledClock({ startMs: base.startMs + 3_600_000, speed: 1 });
const sim = await startSimProcess({ scenarioFile: 'large.json', startMs: clock.now(), faults });
const setup = daemonSide(sim, clock, join(benchDir(), 'bench.db'));
setup.config.collectors.billing.backfillMs = 0;

// Warm-up cycle: first-time work (billing's first read, catalog history) is not the steady state.
for (const collector of collectors.values()) await collector.collect(setup.context());

const profileAt = process.argv.indexOf('--profile');
const profileFile = profileAt > 0 ? process.argv[profileAt + 1] : undefined;
const profiler = profileFile ? new Session() : undefined;
if (profiler) {
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.start');
}
const before = await sim.requestLog();
// The longest the event loop was held: a synchronous store shows here as waiting responses.
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
const cpuBefore = process.cpuUsage();
const started = performance.now();
const rows: Record<string, number> = {};
await Promise.all(
  [...collectors.values()].map(async (collector) => {
    rows[collector.name] = (await collector.collect(setup.context())).rows;
  }),
);
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
loopDelay.disable();
if (profiler && profileFile) {
  const { profile } = await profiler.post('Profiler.stop');
  writeFileSync(profileFile, JSON.stringify(profile));
  profiler.disconnect();
}
const after = await sim.requestLog(before.lastSeq);
const requests = after.total - before.total;
const concurrency = setup.config.api.concurrency;
const floorMs = (requests * LATENCY_MS) / concurrency;
console.log(
  `large scenario: ${base.pods.length} Pods, ${base.endpoints.length} endpoints, ${base.volumes.length} volumes`,
);
console.log(`one cycle of every collector, ${LATENCY_MS} ms latency per request, concurrency ${concurrency}:`);
console.log(`  requests   ${fmt(requests)}`);
console.log(`  wall time  ${fmt(wallMs)} ms`);
console.log(`  floor      ${fmt(floorMs)} ms (requests × latency / concurrency)`);
console.log(`  ratio      ${fmt(wallMs / floorMs, 2)}× the floor`);
console.log(`  CPU        ${fmt((cpu.user + cpu.system) / 1000)} ms of the daemon's process`);
console.log(`  event loop held at most ${fmt(loopDelay.max / 1e6)} ms at a time`);
console.log(`  rows       ${JSON.stringify(rows)}`);
// By route, with ids collapsed, so a change in the request count shows where it comes from.
const byRoute = new Map<string, number>();
for (const entry of after.entries) {
  const route = `${entry.method} ${entry.path.replace(/^(\/v2\/[^/]+\/)[^/]+(?=\/)/, '$1{id}')}`;
  byRoute.set(route, (byRoute.get(route) ?? 0) + 1);
}
console.log('  requests by route:');
for (const [route, count] of [...byRoute].sort((a, b) => b[1] - a[1]))
  console.log(`    ${fmt(count).padStart(5)}  ${route}`);
printResult('collect', { requests, wallMs, floorMs, ratio: wallMs / floorMs });
await setup.close();
await sim.close();
