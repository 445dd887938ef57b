/**
 * What the status page's Pod page costs to gather at the `large` scenario (2,000 Pods), next to
 * the read it replaced in the same run: the account's whole idle window from pod_samples,
 * filtered to the one Pod in JS. Measured between two ticks, as a person opens the page.
 *
 *   npm run bench:pod-page [-- calls]        # default 50 of each, interleaved
 */
import { performance } from 'node:perf_hooks';
import { VirtualClock } from '../src/clock.js';
import { defaultConfig } from '../src/config/load.js';
import { Daemon } from '../src/daemon.js';
import { sampleWindow } from '../src/db/sample-window.js';
import { silentLogger } from '../src/log.js';
import { packagePath } from '../src/package-root.js';
import { classifySample, seriesSamples } from '../src/rules/idle-samples.js';
import { InflightCounter } from '../src/scheduler/inflight.js';
import { loadScenario } from '../src/simulator/scenario.js';
import { startSimulator } from '../src/simulator/server.js';
import { podData } from '../src/web/pod-page.js';
import { benchDir, fmt, windowSampleObjects } from './support.js';

const CALLS = Number(process.argv[2] ?? 50);
const MINUTE = 60_000;
/** A little over the default idle rule's 30-minute window, so the page's window is full. */
const MINUTES = 35;
const ACCOUNT = 'bench';

const scenario = { ...loadScenario(packagePath('config/scenarios/large.json')), rateLimit: undefined, faults: [] };
const clock = new VirtualClock(scenario.startMs + 6 * 60 * MINUTE);
const sim = await startSimulator({ scenario, clock });
const config = defaultConfig([
  { name: ACCOUNT, apiKey: scenario.apiKey, restBaseUrl: sim.restBaseUrl, graphqlBaseUrl: sim.graphqlUrl },
]);
config.database.path = `${benchDir()}/bench.db`;
config.collectors.billing.backfillMs = 6 * 60 * MINUTE;
const daemon = await Daemon.open({ config, clock, log: silentLogger(), inflight: new InflightCounter() });

await daemon.collectOnce();
for (let minute = 0; minute < MINUTES; minute++) {
  await clock.advanceBy(MINUTE);
  await daemon.collect('pods', ACCOUNT);
  await daemon.evaluate();
}

const now = clock.now();
const rule = config.idle.rules[0];
const windowMs = rule?.windowMs ?? 30 * MINUTE;
const threshold = rule?.utilThreshold ?? 5;
const podId = daemon.db.sqlite
  .prepare('SELECT pod_id FROM pod_samples WHERE account = ? AND observed_at >= ? ORDER BY pod_id LIMIT 1')
  .pluck()
  .get(ACCOUNT, now - windowMs) as string;

/** The read podData made before: every Pod's samples of the window, then this Pod's. */
async function accountWindowRead() {
  const rows = windowSampleObjects(daemon.db, ACCOUNT, now - windowMs, now);
  const samples = rows
    .filter((sample) => sample.podId === podId)
    .map((sample) => ({ at: sample.observedAt, state: classifySample(sample, threshold), gpuUtil: sample.maxGpuUtil }));
  return { rows: rows.length, samples };
}

/** The read podData makes now: the Pod's series from its sample tail. */
async function podSeriesRead() {
  const series = (await sampleWindow(daemon.db, ACCOUNT, now - windowMs, now, [podId])).get(podId);
  return series ? seriesSamples(series, now - windowMs, now, threshold) : [];
}

const before = await accountWindowRead();
const after = (await podData(daemon, config, ACCOUNT, podId, now)).samples;
if (JSON.stringify(after) !== JSON.stringify(before.samples)) throw new Error('the two reads disagree');

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const oldMs: number[] = [];
const newMs: number[] = [];
const pageMs: number[] = [];
for (let i = 0; i < CALLS; i++) {
  let start = performance.now();
  await accountWindowRead();
  oldMs.push(performance.now() - start);
  start = performance.now();
  await podSeriesRead();
  newMs.push(performance.now() - start);
  start = performance.now();
  await podData(daemon, config, ACCOUNT, podId, now);
  pageMs.push(performance.now() - start);
}
const old = median(oldMs);
const read = median(newMs);
const page = median(pageMs);
console.log(
  `large scenario: ${fmt(scenario.pods.length)} Pods; ${podId}: ${before.samples.length} samples in its window`,
);
console.log(`median of ${CALLS}:`);
console.log(`  samples, before: account window from SQLite + filter  ${fmt(old, 2)} ms (${fmt(before.rows)} rows)`);
console.log(`  samples, after: the Pod's in-memory series           ${fmt(read, 3)} ms`);
console.log(`  ratio before / after                                 ${fmt(old / read, 0)}×`);
console.log(`  podData now, all the page's data                     ${fmt(page, 2)} ms`);
await daemon.close();
await sim.close();
