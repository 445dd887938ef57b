/**
 * `/metrics` of the `large` scenario on the last day of its month, without budgets and with the
 * five budgets of issue 12: podwarden's registry as the scrape renders it, against bare
 * prom-client serving the same series (the same names, labels and values, set once) in the
 * same run. The scrape must not compute: the target is at most 1.3× bare prom-client. Beside
 * it, what the metrics cost where they do read the database (created, an evaluation tick, a
 * Pod poll), which is work moved off the scrape, not gone.
 *
 *   node --import tsx bench/metrics.ts [runs]
 *   node --expose-gc --import tsx bench/metrics.ts [runs]   # also the heap the metrics hold
 *   PODWARDEN_BENCH_DB=month-end.db node --import tsx bench/metrics.ts   # reuse a collected month
 */
import { performance } from 'node:perf_hooks';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { collectors } from '../src/collectors/index.js';
import { budgetsSection } from '../src/config/sections/budgets.js';
import { finishRun, startRun } from '../src/db/collector-runs.js';
import { EventBus } from '../src/events.js';
import { createMetrics, type Metrics } from '../src/metrics/registry.js';
import { FIVE_BUDGETS, monthEndSetup } from './month-end.js';
import { fmt, printResult } from './support.js';

const RUNS = Number(process.argv[2] ?? 10);
const setup = await monthEndSetup({ budgets: false });
const { db, config, clock } = setup;
// The month-end setup runs the collectors without the runner, so no run is on record and spend
// and burn rates (absent until their collectors succeeded) would be left out of the scrape.
for (const collector of collectors.keys()) {
  for (const account of config.accounts) {
    const now = clock.now();
    await finishRun(db, await startRun(db, { account: account.name, collector, startedAt: now }), {
      endedAt: now,
      outcome: 'ok',
      rows: 0,
    });
  }
}
const events = new EventBus();
const source = {
  db,
  events,
  enabledCollectors: () => [...collectors.keys()],
  rateLimits: () => [],
  databaseWriteProblem: () => undefined,
} as unknown as Parameters<typeof createMetrics>[0]['source'];

/**
 * Median times of `a` and `b` over RUNS runs, taken in turns so that both meet the same load
 * (the machine is shared) and the same garbage left by the refreshes before them.
 */
async function medians(a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number, number]> {
  await a();
  await b();
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < RUNS; i++) {
    for (const [index, run] of [a, b].entries()) {
      const t = performance.now();
      await run();
      times[index]?.push(performance.now() - t);
    }
  }
  const median = (values: number[]) => values.sort((x, y) => x - y)[Math.floor(RUNS / 2)] as number;
  return [median(times[0]), median(times[1])];
}

/**
 * A bare prom-client registry serving exactly the series `registry` exposes now: prom-client's
 * own process metrics collected the same way, and every other family with its type, label
 * names (in order) and values set once, so the baseline is prom-client's serialization of the
 * same exposition and nothing else.
 */
async function bareCopy(registry: Registry): Promise<Registry> {
  const bare = new Registry();
  collectDefaultMetrics({ register: bare });
  const defaults = new Set(bare.getMetricsAsArray().map((metric) => metric.name));
  const snapshot = await registry.getMetricsAsJSON();
  for (const metric of registry.getMetricsAsArray()) {
    if (defaults.has(metric.name)) continue;
    const values = (snapshot.find((m) => m.name === metric.name)?.values ?? []) as Array<{
      labels: Record<string, string | number>;
      value: number;
    }>;
    const options = {
      name: metric.name,
      help: metric.help,
      labelNames: [...((metric as unknown as { labelNames: string[] }).labelNames ?? [])],
      registers: [bare],
    };
    switch (String(metric.type)) {
      case 'gauge': {
        const gauge = new Gauge(options);
        for (const { labels, value } of values) gauge.set(labels, value);
        break;
      }
      case 'counter': {
        const counter = new Counter(options);
        for (const { labels, value } of values) counter.inc(labels, value);
        break;
      }
      case 'histogram': {
        // The bench makes no API requests: its histograms are empty, and so is the copy.
        if (values.length > 0) throw new Error(`bareCopy: histogram ${metric.name} has observations`);
        new Histogram({ ...options, buckets: (metric as unknown as { upperBounds: number[] }).upperBounds });
        break;
      }
      default:
        throw new Error(`bareCopy: no copy for ${metric.name} of type ${String(metric.type)}`);
    }
  }
  return bare;
}

const seriesOf = (text: string) => text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).length;

/** What the metrics take at the moments they read the database: created, an evaluation tick, a Pod poll. */
function refreshTimes(make: () => Metrics): { start: number; tick: number; pods: number; metrics: Metrics } {
  let t = performance.now();
  const metrics = make();
  const start = performance.now() - t;
  t = performance.now();
  events.emit('evaluation:finished', { at: clock.now() });
  const tick = performance.now() - t;
  t = performance.now();
  const [account] = config.accounts;
  const now = clock.now();
  events.emit('collector:finished', {
    account: account?.name ?? '',
    collector: 'pods',
    outcome: 'ok',
    rows: 0,
    startedAt: now,
    endedAt: now,
  });
  const pods = performance.now() - t;
  return { start, tick, pods, metrics };
}

/** Heap in use after a full collection, when node runs with --expose-gc; else undefined. */
function heapAfterGc(): number | undefined {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return undefined;
  gc();
  return process.memoryUsage().heapUsed;
}

async function measure(label: string): Promise<number> {
  const heapBefore = heapAfterGc();
  const { start, tick, pods, metrics } = refreshTimes(() => createMetrics({ source, config, clock }));
  const heapAfter = heapAfterGc();
  const text = await metrics.registry.metrics();
  const bare = await bareCopy(metrics.registry);
  const bareText = await bare.metrics();
  if (seriesOf(bareText) !== seriesOf(text)) {
    throw new Error(`bare copy has ${seriesOf(bareText)} series, podwarden ${seriesOf(text)}`);
  }
  const [ours, theirs] = await medians(
    () => metrics.registry.metrics(),
    () => bare.metrics(),
  );
  console.log(
    `${label.padEnd(16)} ${fmt(seriesOf(text))} series, ${fmt(text.length / 1e6, 2)} MB: podwarden ${fmt(ours / 1000, 3)} s, ` +
      `bare prom-client ${fmt(theirs / 1000, 3)} s, ratio ${fmt(ours / theirs, 2)}×`,
  );
  console.log(
    `${''.padEnd(16)} off the scrape: ${fmt(start)} ms to create, ${fmt(tick)} ms on an evaluation tick, ` +
      `${fmt(pods)} ms after a Pod poll` +
      (heapBefore === undefined || heapAfter === undefined
        ? ''
        : `; heap held ${fmt((heapAfter - heapBefore) / 1e6, 1)} MB (the database read caches included)`),
  );
  metrics.close();
  return ours / theirs;
}

console.log(`large scenario, ${new Date(clock.now()).toISOString()}, median of ${RUNS}:`);
const ratioNoBudgets = await measure('no budgets');
config.budgets = budgetsSection.parse(FIVE_BUDGETS);
const ratioFiveBudgets = await measure('five budgets');
printResult('metrics', { ratioNoBudgets, ratioFiveBudgets, runs: RUNS });
await setup.close();
